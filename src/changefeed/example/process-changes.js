// Runs one instance of a change feed processor over the container `orders`, printing each change as a
// JSON line on stdout. Start it twice: the two instances share the container's feed ranges through
// lease documents in `leases`, and when one stops the other takes its ranges over.
//
//   COSMOS_ENDPOINT=https://myaccount.documents.azure.com:443/ COSMOS_KEY=... node process-changes.js
//
// Variables: COSMOS_ENDPOINT, COSMOS_KEY, COSMOS_DATABASE (default "shop"), INSTANCE_NAME (default
// host-pid), LEASE_ACQUIRE_INTERVAL_MS (default 5000: how soon a stopped instance's ranges move).
'use strict';
const { CosmosClient } = require('@azure/cosmos');
const { createChangeFeedProcessor } = require('@opstream/changefeed');

async function main() {
  const client = new CosmosClient({ endpoint: required('COSMOS_ENDPOINT'), key: required('COSMOS_KEY') });
  const { database } = await client.databases.createIfNotExists({ id: process.env.COSMOS_DATABASE || 'shop' });
  const { container: orders } = await database.containers.createIfNotExists({ id: 'orders', partitionKey: { paths: ['/customerId'] } });
  // The lease container: partitioned on /id, TTL on (the processor's bootstrap lock expires by TTL).
  const { container: leases } = await database.containers.createIfNotExists({
    id: 'leases',
    partitionKey: { paths: ['/id'] },
    defaultTtl: -1,
  });

  const acquireMs = Number(process.env.LEASE_ACQUIRE_INTERVAL_MS || 5000);
  const processor = createChangeFeedProcessor(
    {
      feedContainer: orders,
      leaseContainer: leases,
      // At least once, in order per feed range: the batch is checkpointed after this resolves.
      handler: async (documents, context) => {
        for (const order of documents) {
          console.log(JSON.stringify({ event: 'change', id: order.id, leaseToken: context.leaseToken, instance: context.instanceName }));
        }
      },
      // A document that keeps failing on its own ends here, and its range moves on.
      onPoison: async (order, error) => console.error(`poison ${order.id}: ${error}`),
    },
    {
      processorName: 'order-printer',
      instanceName: process.env.INSTANCE_NAME,
      startFrom: 'beginning',
      leaseAcquireIntervalMs: acquireMs,
      leaseRenewIntervalMs: 2 * acquireMs,
      leaseExpirationMs: 6 * acquireMs,
    },
  );
  processor.events$.subscribe((event) => {
    if (
      event.type === 'changefeed.lease.acquired' ||
      event.type === 'changefeed.lease.released' ||
      event.type === 'changefeed.checkpoint'
    ) {
      console.log(JSON.stringify({ event: event.type, leaseToken: event.leaseToken, instance: event.instanceName }));
    }
  });

  await processor.start();
  console.log(JSON.stringify({ event: 'started', instance: processor.instanceName }));
  const stop = async () => {
    await processor.stop(); // releases every lease, so another instance takes over at once
    console.log(JSON.stringify({ event: 'stopped' }));
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function required(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set: give the account's endpoint (COSMOS_ENDPOINT) and key (COSMOS_KEY)`);
    process.exit(2);
  }
  return value;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

import type { Container } from '@azure/cosmos';
import { createChangeFeedProcessor, type ChangeFeedProcessor } from '@opstream/changefeed';
import { emulatorClient, startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, createContainers, writeDocs, type Doc } from './harness';

/**
 * Leases a .NET fleet and other tools can share on a real account: the id prefix names the
 * configured endpoint's host even when the account advertises a regional write host, lease
 * containers partitioned on `/partitionKey` work, and version-0 leases of an older fleet are
 * taken over (or refuse the start while that fleet holds them).
 */
describe('lease prefix, /partitionKey lease containers and version-0 leases', () => {
  let cosmos: TestCosmos;
  const processors: ChangeFeedProcessor[] = [];

  beforeAll(async () => {
    // The account read names `localhost` as its write location, as Azure names `account-westus…`.
    cosmos = await startTestCosmos({ advertisedHost: 'localhost' });
  });
  afterAll(async () => {
    await Promise.all(processors.map((p) => p.stop()));
    await cosmos.close();
  });

  async function prefixOf(feed: Container, processorName: string, host: string): Promise<string> {
    const { resource: db } = await feed.database.read();
    const { resource: coll } = await feed.read();
    return `${processorName}${host}_${db!._rid}_${coll!._rid}`;
  }

  test('with endpoint discovery on, the SDK writes to the advertised host but lease ids carry the configured host', async () => {
    const client = emulatorClient(cosmos.emu, {
      connectionPolicy: { enableEndpointDiscovery: true, enableBackgroundEndpointRefreshing: false },
    });
    try {
      expect(new URL(await client.getWriteEndpoint()).hostname).toBe('localhost');
      const c = await createContainers(cosmos);
      const feed = client.database(c.database.id).container(c.feed.id);
      const leases = client.database(c.database.id).container(c.leases.id);
      const d = new Deliveries();
      const processorName = uniqueName('ops');
      const p = createChangeFeedProcessor<Doc>(
        { feedContainer: feed, leaseContainer: leases, handler: d.handler },
        { ...FAST, processorName, startFrom: 'beginning' },
      );
      processors.push(p);
      await p.start();
      const ids = await writeDocs(c.feed, 8, 'doc');
      await waitFor(() => d.hasAll(ids));
      const prefix = await prefixOf(c.feed, processorName, '127.0.0.1');
      const { resources } = await c.leases.items.readAll<{ id: string }>().fetchAll();
      expect(resources.filter((r) => r.id.startsWith(`${prefix}..`))).toHaveLength(4);
      expect(resources.some((r) => r.id.includes('localhost'))).toBe(false);
    } finally {
      client.dispose();
    }
  });

  test('a lease container partitioned on /partitionKey holds leases and markers that carry partitionKey, and processing works', async () => {
    const c = await createContainers(cosmos);
    const { container: leases } = await c.database.containers.create({
      id: uniqueName('pkleases'),
      partitionKey: { paths: ['/partitionKey'] },
      defaultTtl: -1,
    });
    const d = new Deliveries();
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: c.feed, leaseContainer: leases, handler: d.handler },
      { ...FAST, processorName: uniqueName('ops'), startFrom: 'beginning' },
    );
    processors.push(p);
    await p.start();
    const ids = await writeDocs(c.feed, 20, 'doc');
    await waitFor(() => d.hasAll(ids));
    await waitFor(async () => (await p.getCurrentState({ estimateLag: false })).leases.every((l) => l.continuation !== null));
    const { resources } = await leases.items.readAll<{ id: string; partitionKey?: string }>().fetchAll();
    expect(resources.length).toBe(5); // 4 leases and .info
    for (const doc of resources) expect(doc.partitionKey).toBe(doc.id);
    await p.stop();
    const state = await (async () => {
      const again = createChangeFeedProcessor<Doc>(
        { feedContainer: c.feed, leaseContainer: leases, handler: d.handler },
        { ...FAST, processorName: p.processorName },
      );
      processors.push(again);
      await again.start();
      return again.getCurrentState({ estimateLag: false });
    })();
    expect(state.leases.filter((l) => l.ownedByThisInstance)).toHaveLength(4);
  });

  test('released version-0 leases become version-1 leases with their checkpoint; a live one refuses the start', async () => {
    const c = await createContainers(cosmos);
    const processorName = uniqueName('ops');
    const prefix = await prefixOf(c.feed, processorName, '127.0.0.1');
    const before = await writeDocs(c.feed, 12, 'old');
    const { resources: ranges } = await c.feed.readPartitionKeyRanges().fetchAll();
    // What an older .NET fleet left: one lease per partition key range, checkpointed after everything
    // written so far (the emulator's LSN counts the container's writes: 12 creates, LSN 12).
    const v0 = (rangeId: string, owner: string | null) => ({
      id: `${prefix}..${rangeId}`,
      version: 0,
      LeaseToken: rangeId,
      Owner: owner,
      ContinuationToken: `"${before.length}"`,
      timestamp: new Date().toISOString(),
      properties: { fleet: 'dotnet' },
    });
    await c.leases.items.create(v0(ranges[0].id, 'dotnet-host-1'));
    for (const r of ranges.slice(1)) await c.leases.items.create(v0(r.id, null));
    await c.leases.items.create({ id: `${prefix}.info` });

    const d = new Deliveries();
    const refused = createChangeFeedProcessor<Doc>(
      { feedContainer: c.feed, leaseContainer: c.leases, handler: d.handler },
      { ...FAST, processorName },
    );
    await expect(refused.start()).rejects.toThrow(
      /version-0 lease .* held by dotnet-host-1: an older .NET change feed processor is running/,
    );

    await c.leases.item(`${prefix}..${ranges[0].id}`, `${prefix}..${ranges[0].id}`).replace(v0(ranges[0].id, null));
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: c.feed, leaseContainer: c.leases, handler: d.handler },
      { ...FAST, processorName },
    );
    processors.push(p);
    await p.start();
    const { resources } = await c.leases.items
      .readAll<{ id: string; version?: number; LeaseToken: string; ContinuationToken: string; properties: Record<string, string> }>()
      .fetchAll();
    const leases = resources.filter((r) => r.id.startsWith(`${prefix}..`));
    expect(leases).toHaveLength(ranges.length);
    for (const l of leases) {
      expect(l.version).toBe(1);
      expect(l.properties).toEqual({ fleet: 'dotnet' });
    }
    expect(leases.map((l) => l.LeaseToken).sort()).toEqual(ranges.map((r) => `${r.minInclusive}-${r.maxExclusive}`).sort());
    // The checkpoint carried over: what the old fleet had read is not delivered again, what follows is.
    const after = await writeDocs(c.feed, 8, 'new');
    await waitFor(() => d.hasAll(after));
    expect(before.filter((id) => d.counts.has(id))).toEqual([]);
  });
});

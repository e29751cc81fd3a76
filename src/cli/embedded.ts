import type { CosmosEmulator } from '@opstream/cosmos-emulator';
import type { ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import type { ServiceBusEmulator } from '@opstream/service-bus-emulator';
import {
  FrontendSimulator,
  DEMO_LIFECYCLE,
  runWorkload,
  type NotificationReceiver,
  type WorkloadResult,
} from '@opstream/frontend-simulator';
import { startLocalStack } from '@opstream/local-stack';
import { defaultProcessors } from '../../processors/registry';
import { startOpstream, type Opstream } from '../app/opstream-app';
import { createCosmosClient, keyAuth } from '../app/cosmos-client';
import { cliEnvLines } from './cli-env-block';
import type { OpstreamConfig } from '../config/config-types';
import type { Logger } from '../logging/logger';
import { TAP_STREAM, TAP_SUBSCRIPTION } from './topic-tap';

/**
 * The embedded default (`opstream start`): everything on this machine, nothing to configure —
 * the Cosmos emulator (journal under the user's data folder), the Clusters Service simulator, the
 * ARM notification receiver, opstream itself, and a demo workload that drives clusters and node
 * pools through their lifecycles.
 */
export interface EmbeddedOptions {
  dataDir: string;
  cosmosPort: number;
  clustersServicePort: number;
  /** Local Service Bus (AMQP) port; 0 = any free port. */
  serviceBusPort: number;
  demo: { subscriptions: number; clustersPerSubscription: number } | false;
  /** Simulated Clusters Service phase durations (ms). */
  csPhaseMs: number;
  logger: Logger;
  progress: (line: string) => void;
}

export interface Embedded {
  emulator: CosmosEmulator;
  clustersService: ClustersServiceSimulator;
  serviceBus: ServiceBusEmulator;
  receiver: NotificationReceiver;
  app: Opstream;
  demo?: Promise<WorkloadResult>;
  stop(): Promise<void>;
}

export async function startEmbedded(config: OpstreamConfig, options: EmbeddedOptions): Promise<Embedded> {
  const ms = options.csPhaseMs;
  const stack = await startLocalStack({
    cosmos: { port: options.cosmosPort, partitions: 4, dataDir: options.dataDir },
    serviceBus: { port: options.serviceBusPort, config: serviceBusEntities(config) },
    clustersService: {
      port: options.clustersServicePort,
      durations: { pendingMs: ms, validatingMs: ms, installingMs: 2 * ms, updatingMs: 2 * ms, deleteStartMs: ms, uninstallingMs: 2 * ms },
      publishEvents: { topic: config.serviceBus.clustersServiceTopic },
    },
  });
  const emulator = stack.cosmos.emulator as CosmosEmulator;
  const serviceBus = stack.serviceBus as ServiceBusEmulator;
  const { clustersService, receiver } = stack;
  const client = createCosmosClient(keyAuth(emulator.endpoint, emulator.key));
  const full: OpstreamConfig = {
    ...config,
    cosmos: { ...config.cosmos, endpoint: emulator.endpoint, key: emulator.key, createContainers: true },
    clustersService: { ...config.clustersService, url: clustersService.url },
    // The demo's frontend announces its writes, so idle ranges are polled at the hints ceiling.
    // The embedded stand-in is the namespace, whatever serviceBus.namespace/endpoint the environment names.
    serviceBus: {
      ...config.serviceBus,
      connectionString: serviceBus.connectionString,
      namespace: undefined,
      endpoint: undefined,
      hints: true,
    },
    // The embedded ARM receiver listens on loopback (http): the development switch lets notifications reach it.
    notifications: { ...config.notifications, allowLoopback: true },
  };
  const app = await startOpstream(full, { processors: defaultProcessors, logger: options.logger });
  // The publisher's leases start at "now" when first created: the demo waits for them, so that its first writes are published too.
  await app.operationEvents?.ready;
  options.progress(`Cosmos emulator   ${emulator.endpoint} (journal ${options.dataDir})`);
  options.progress(`Clusters Service  ${clustersService.url} (publishes its state changes on Service Bus)`);
  options.progress(
    `                  test controls: ${clustersService.url}/_admin/ with "Authorization: Bearer ${clustersService.adminToken}" (infra/clusters-service/README.md)`,
  );
  options.progress(`Service Bus       ${serviceBus.connectionString} (in memory)`);
  options.progress(
    `                  wake-up hints on the queue ${full.serviceBus.hintsEntity} (idle ranges polled every ${full.serviceBus.hintsMaxPollDelayMs} ms)`,
  );
  options.progress(
    `                  Operation events: opstream tap ${TAP_STREAM} --service-bus-connection-string '${serviceBus.connectionString}'`,
  );
  options.progress(`ops server        ${app.opsUrl ?? '(off)'}  — live page at /, taps at /streams/<name>`);
  // What `opstream explain`, `leases`, `lag` and `dead-letters` need from another shell (without it they exit 78).
  options.progress(
    `CLI settings      for opstream explain, leases, lag and dead-letters in another shell, paste (the key is the local emulator's well-known key, not a secret):`,
  );
  for (const line of cliEnvLines(full)) options.progress(line);

  let demo: Promise<WorkloadResult> | undefined;
  let frontend: FrontendSimulator | undefined;
  const abort = new AbortController();
  if (options.demo) {
    frontend = new FrontendSimulator({
      database: client.database(config.cosmos.database),
      notificationBaseUrl: receiver.url,
      hints: { connectionString: serviceBus.connectionString, entity: full.serviceBus.hintsEntity },
    });
    await frontend.openHints();
    let issued = 0;
    let ended = 0;
    demo = runWorkload({
      frontend,
      subscriptions: options.demo.subscriptions,
      clustersPerSubscription: options.demo.clustersPerSubscription,
      // Every kind the build handles: clusters, node pools, a break-glass credential and its revocation, an external auth.
      steps: DEMO_LIFECYCLE,
      seed: Date.now() % 100_000,
      signal: abort.signal,
      waitForTerminal: async (op) => {
        const n = await receiver.waitForNotification(op.operationId, 10 * 60_000);
        return String((n.body as { status?: unknown }).status);
      },
      onOperation: (op, step) => {
        // A write that was in flight at Ctrl-C may land after the stop: it is not reported below "stopped".
        if (abort.signal.aborted) return;
        issued++;
        options.progress(`demo  → ${step.padEnd(15)} ${shortId(op.externalId)}  (${ended}/${issued} done)`);
      },
      onTerminal: (op, step, status) => {
        if (abort.signal.aborted) return;
        ended++;
        options.progress(`demo  ✓ ${step.padEnd(15)} ${shortId(op.externalId)}  ${status}  (${ended}/${issued} done)`);
      },
    });
  }
  return {
    emulator,
    clustersService,
    serviceBus,
    receiver,
    app,
    demo,
    stop: async () => {
      abort.abort();
      await app.stop();
      await frontend?.close();
      client.dispose();
      await stack.close();
    },
  };
}

function shortId(armId: string): string {
  const parts = armId.split('/');
  const i = parts.findIndex((p) => p.toLowerCase() === 'hcpopenshiftclusters');
  return parts.slice(i + 1).join('/');
}

/**
 * The local Service Bus namespace of the demo, in the official emulator's Config.json shape: the
 * Operation events topic (duplicate detection on, as opstream's guarantee needs) with the
 * subscription `opstream tap` reads, the Clusters Service events topic with opstream's
 * subscription, and the queue the demo's frontend sends its wake-up hints to. Messages nobody reads expire after 10 minutes.
 */
function serviceBusEntities(config: OpstreamConfig): unknown {
  const ttl = { DefaultMessageTimeToLive: 'PT10M' };
  return {
    UserConfig: {
      Namespaces: [
        {
          Name: 'opstream-demo',
          Queues: [{ Name: config.serviceBus.hintsEntity, Properties: ttl }],
          Topics: [
            {
              Name: config.serviceBus.operationEventsTopic,
              Properties: { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: 'PT10M' },
              Subscriptions: [{ Name: TAP_SUBSCRIPTION, Properties: ttl }],
            },
            {
              Name: config.serviceBus.clustersServiceTopic,
              Properties: {},
              Subscriptions: [{ Name: config.serviceBus.clustersServiceSubscription, Properties: ttl }],
            },
          ],
        },
      ],
      Logging: { Type: 'File' },
    },
  };
}

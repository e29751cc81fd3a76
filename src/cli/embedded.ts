import { mkdirSync } from 'fs';
import { startCosmosEmulator, type CosmosEmulator } from '../../infra/cosmos-emulator';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '../../infra/clusters-service';
import { FrontendSimulator, runWorkload, startNotificationReceiver, type NotificationReceiver, type WorkloadResult } from '../../infra/frontend';
import { defaultProcessors } from '../../processors/registry';
import { startOpstream, type Opstream } from '../app/opstream-app';
import { createCosmosClient, keyAuth } from '../app/cosmos-client';
import type { OpstreamConfig } from '../config/config-types';
import type { Logger } from '../logging/logger';

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
  demo: { subscriptions: number; clustersPerSubscription: number } | false;
  /** Simulated Clusters Service phase durations (ms). */
  csPhaseMs: number;
  logger: Logger;
  progress: (line: string) => void;
}

export interface Embedded {
  emulator: CosmosEmulator;
  clustersService: ClustersServiceSimulator;
  receiver: NotificationReceiver;
  app: Opstream;
  demo?: Promise<WorkloadResult>;
  stop(): Promise<void>;
}

export async function startEmbedded(config: OpstreamConfig, options: EmbeddedOptions): Promise<Embedded> {
  mkdirSync(options.dataDir, { recursive: true });
  const emulator = await startCosmosEmulator({ port: options.cosmosPort, partitions: 4, dataDir: options.dataDir });
  const ms = options.csPhaseMs;
  const clustersService = await startClustersServiceSimulator({
    port: options.clustersServicePort,
    durations: { pendingMs: ms, validatingMs: ms, installingMs: 2 * ms, updatingMs: 2 * ms, deleteStartMs: ms, uninstallingMs: 2 * ms },
  });
  const receiver = await startNotificationReceiver();
  const client = createCosmosClient(keyAuth(emulator.endpoint, emulator.key));
  const full: OpstreamConfig = {
    ...config,
    cosmos: { ...config.cosmos, endpoint: emulator.endpoint, key: emulator.key, createContainers: true },
    clustersService: { ...config.clustersService, url: clustersService.url },
  };
  const app = await startOpstream(full, { processors: defaultProcessors, logger: options.logger });
  options.progress(`Cosmos emulator   ${emulator.endpoint} (journal ${options.dataDir})`);
  options.progress(`Clusters Service  ${clustersService.url}`);
  options.progress(`ops server        ${app.opsUrl ?? '(off)'}  — live page at /, taps at /streams/<name>`);

  let demo: Promise<WorkloadResult> | undefined;
  const abort = new AbortController();
  if (options.demo) {
    const frontend = new FrontendSimulator({ database: client.database(config.cosmos.database), notificationBaseUrl: receiver.url });
    let issued = 0;
    let finished = 0;
    demo = runWorkload({
      frontend,
      subscriptions: options.demo.subscriptions,
      clustersPerSubscription: options.demo.clustersPerSubscription,
      seed: Date.now() % 100_000,
      signal: abort.signal,
      waitForTerminal: async (op) => {
        const n = await receiver.waitForNotification(op.operationId, 10 * 60_000);
        return String((n.body as { status?: unknown }).status);
      },
      onOperation: (op, step) => {
        issued++;
        options.progress(`demo  → ${step.padEnd(15)} ${shortId(op.externalId)}  (${finished}/${issued} done)`);
      },
      onTerminal: (op, step, status) => {
        finished++;
        options.progress(`demo  ✓ ${step.padEnd(15)} ${shortId(op.externalId)}  ${status}  (${finished}/${issued} done)`);
      },
    });
  }
  return {
    emulator,
    clustersService,
    receiver,
    app,
    demo,
    stop: async () => {
      abort.abort();
      await app.stop();
      client.dispose();
      await receiver.close();
      await clustersService.close();
      await emulator.close();
    },
  };
}

function shortId(armId: string): string {
  const parts = armId.split('/');
  const i = parts.findIndex((p) => p.toLowerCase() === 'hcpopenshiftclusters');
  return parts.slice(i + 1).join('/');
}

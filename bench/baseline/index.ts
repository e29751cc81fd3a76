/**
 * The polling backend opstream replaces (see README.md): `startBaseline(config)` → `{stop(), stats}`.
 */
import type { CosmosClient } from '@azure/cosmos';
import { createCosmosClient, keyAuth } from '../../src/app/cosmos-client';
import { ClustersServiceClient } from '../../src/clusters-service';
import { ensureContainers, OperationsRepository, ResourcesRepository, SubscriptionsRepository } from '../../src/cosmos';
import { SubscriptionLocks } from '../../src/locks';
import { createLogger, type Logger } from '../../src/logging/logger';
import type { BaselineConfig } from './config';
import type { BaselineContext } from './context';
import { NotificationQueue } from './notifications';
import { Poller, type PollerStats } from './poller';

export { baselineConfigFromEnv, type BaselineConfig } from './config';
export interface Baseline {
  readonly stats: Readonly<PollerStats>;
  stop(): Promise<void>;
}

export interface BaselineDeps {
  logger?: Logger;
  /** Reuse a client (tests); otherwise one is built like opstream's. */
  cosmosClient?: CosmosClient;
}

export async function startBaseline(config: BaselineConfig, deps: BaselineDeps = {}): Promise<Baseline> {
  const logger = deps.logger ?? createLogger({ defaultMeta: { system: 'baseline' } });
  const client = deps.cosmosClient ?? createCosmosClient(keyAuth(config.cosmosEndpoint, config.cosmosKey));
  const containers = await ensureContainers(client, config.database, { create: config.createContainers, logger });
  const operations = new OperationsRepository(containers.operations);
  const ctx: BaselineContext = {
    operations,
    resources: new ResourcesRepository(containers.resources),
    subscriptions: new SubscriptionsRepository(containers.subscriptions),
    // Retry ≈1 s apart while the lock is held (the reference protocol; opstream uses 50 ms).
    // Upstream retried a held lock about once a second (reference: subscription lock): a fixed 1 s, no jitter.
    locks: new SubscriptionLocks(containers.locks, {
      owner: config.owner,
      ttlSeconds: config.lockTtlSeconds,
      logger,
      acquireRetryBaseMs: 1000,
      acquireRetryMaxMs: 1000,
      random: () => 0,
    }),
    cs: new ClustersServiceClient({ baseUrl: config.clustersServiceUrl, logger }),
    notifications: new NotificationQueue(operations, logger, config.allowLoopbackNotifications ?? false),
    logger,
    deletesSent: new Set(),
  };
  const poller = new Poller(ctx, { scanIntervalMs: config.scanIntervalMs, passIntervalMs: config.passIntervalMs });
  poller.start();
  logger.info('baseline started', { scanIntervalMs: config.scanIntervalMs, passIntervalMs: config.passIntervalMs });
  let stopping: Promise<void> | undefined;
  return {
    stats: poller.stats,
    stop: () =>
      (stopping ??= (async () => {
        await poller.stop();
        if (!deps.cosmosClient) client.dispose();
      })()),
  };
}

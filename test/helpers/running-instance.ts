import type { Database } from '@azure/cosmos';
import type { ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { settingsEnv, startLocalStack } from '@opstream/local-stack';
import { stackCosmos } from './opstream-harness';
import { FrontendSimulator, type NotificationReceiver, type WrittenOperation } from '@opstream/frontend-simulator';
import { defaultProcessors } from '../../processors/registry';
import { startOpstream, type Opstream, type OpstreamDeps } from '../../src/app/opstream-app';
import type { OpstreamConfig } from '../../src/config/config-types';
import { FAST_CS_DURATIONS, testConfig } from './test-config';
import { createLogger } from '../../src/logging/logger';
import type { TestCosmos } from './cosmos';
import { uniqueName, waitFor } from './wait-for';

/**
 * One running opstream instance for tests of its operator face (CLI, ops server, live page, logs):
 * the Cosmos emulator, a fast Clusters Service simulator, an ARM notification receiver, the
 * frontend simulator, and opstream itself in this process with its ops server on a free loopback
 * port. `cliEnv` points a spawned `opstream` CLI at it.
 */
export interface RunningInstance {
  cosmos: TestCosmos;
  database: Database;
  databaseId: string;
  cs: ClustersServiceSimulator;
  receiver: NotificationReceiver;
  frontend: FrontendSimulator;
  config: OpstreamConfig;
  app: Opstream;
  opsUrl: string;
  /** OPSTREAM_* settings of this instance, for CLI child processes. */
  cliEnv: Record<string, string>;
  /** Resolves with the terminal status ARM was told. */
  terminal(op: WrittenOperation, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export interface RunningInstanceOptions {
  /** Extra settings by key (`ops.token`, `clustersService.token`, …). */
  settings?: Record<string, unknown>;
  csToken?: string;
  opsSse?: OpstreamDeps['opsSse'];
}

export { FAST_CS_DURATIONS };

export async function startRunningInstance(options: RunningInstanceOptions = {}): Promise<RunningInstance> {
  const stack = await startLocalStack({ clustersService: { durations: FAST_CS_DURATIONS, token: options.csToken } });
  const cosmos = stackCosmos(stack);
  const databaseId = uniqueName('ops');
  const { clustersService: cs, receiver } = stack;
  const config = testConfig(
    { cosmosEndpoint: cosmos.emu.endpoint, cosmosKey: cosmos.emu.key, databaseId, csUrl: cs.url, csToken: options.csToken },
    { 'changefeed.instanceName': uniqueName('instance'), ...options.settings },
  );
  const logger = createLogger({ silent: process.env.OPSTREAM_TEST_LOGS !== '1', level: 'debug' });
  const app = await startOpstream(config, { processors: defaultProcessors, logger, opsSse: options.opsSse });
  const database = cosmos.client.database(databaseId);
  const frontend = new FrontendSimulator({ database, notificationBaseUrl: receiver.url });
  // Ready = every lease held, so a write is read at once.
  await waitFor(
    async () => (await app.pipeline.processor.getCurrentState({ estimateLag: false })).leases.every((l) => l.ownedByThisInstance),
    {
      timeoutMs: 30_000,
      describe: () => 'the instance to hold every lease',
    },
  );
  return {
    cosmos,
    database,
    databaseId,
    cs,
    receiver,
    frontend,
    config,
    app,
    opsUrl: app.opsUrl as string,
    cliEnv: {
      ...settingsEnv({ 'cosmos.endpoint': cosmos.emu.endpoint, 'cosmos.key': cosmos.emu.key, 'cosmos.database': databaseId }),
      OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: '3000',
      OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: '500',
      OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
      OPSTREAM_OPS_ADDR: new URL(app.opsUrl as string).host,
      ...(config.ops.token ? { OPSTREAM_OPS_TOKEN: config.ops.token } : {}),
    },
    terminal: async (op, timeoutMs = 60_000) =>
      String(((await receiver.waitForNotification(op.operationId, timeoutMs)).body as { status: unknown }).status),
    close: async () => {
      await app.stop();
      await cosmos.close();
    },
  };
}

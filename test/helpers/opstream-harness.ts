import type { CosmosClient, Database } from '@azure/cosmos';
import type { ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { emulatorClient } from '@opstream/cosmos-emulator/client-options';
import { startLocalStack, type LocalStack } from '@opstream/local-stack';
import type { CosmosEmulator } from '@opstream/cosmos-emulator';
import { FrontendSimulator, type NotificationReceiver, type WrittenOperation } from '@opstream/frontend-simulator';
import { defaultProcessors } from '../../processors/registry';
import { startOpstream, type Opstream } from '../../src/app/opstream-app';
import { FAST_CS_DURATIONS, testConfig } from './test-config';
import type { OpstreamConfig } from '../../src/config/config-types';
import { createLogger, type Logger } from '../../src/logging/logger';
import type { TestCosmos } from './cosmos';
import { uniqueName, waitFor } from './wait-for';

/**
 * Everything an end-to-end test of the pipeline needs, on loopback: the Cosmos emulator, the
 * Clusters Service simulator with fast phases, an ARM notification receiver, the frontend
 * simulator, and opstream instances with short intervals (set through configuration only).
 */
export interface Harness {
  cosmos: TestCosmos;
  client: CosmosClient;
  database: Database;
  databaseId: string;
  cs: ClustersServiceSimulator;
  receiver: NotificationReceiver;
  frontend: FrontendSimulator;
  config: OpstreamConfig;
  instances: Opstream[];
  startInstance(name?: string): Promise<Opstream>;
  /** Resolves with the terminal status ARM was told. */
  terminal(op: WrittenOperation, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

export const FAST_CS = FAST_CS_DURATIONS;

/** The stack's emulator with a client, as the tests use it; closing it closes the whole stack. */
export function stackCosmos(stack: LocalStack): TestCosmos {
  const emu = stack.cosmos.emulator as CosmosEmulator;
  const client = emulatorClient(emu);
  return {
    emu,
    client,
    close: async () => {
      client.dispose();
      await stack.close();
    },
  };
}

export async function startHarness(
  options: {
    csDurations?: Partial<typeof FAST_CS>;
    settings?: Record<string, unknown>;
    csToken?: string;
    /** CS publishes state changes there. */
    csServiceBus?: string;
    /** The instances' logger. @defaultValue silent unless OPSTREAM_TEST_LOGS=1 */
    logger?: Logger;
  } = {},
): Promise<Harness> {
  const stack = await startLocalStack({
    clustersService: {
      durations: { ...FAST_CS, ...options.csDurations },
      token: options.csToken,
      ...(options.csServiceBus ? { serviceBus: { connectionString: options.csServiceBus } } : {}),
    },
  });
  const cosmos = stackCosmos(stack);
  const databaseId = uniqueName('e2e');
  const { clustersService: cs, receiver } = stack;
  const config = testConfig(
    { cosmosEndpoint: cosmos.emu.endpoint, cosmosKey: cosmos.emu.key, databaseId, csUrl: cs.url, csToken: options.csToken },
    options.settings,
  );
  const instances: Opstream[] = [];
  const logger = options.logger ?? createLogger({ silent: process.env.OPSTREAM_TEST_LOGS !== '1', level: 'debug' });
  const startInstance = async (name?: string): Promise<Opstream> => {
    const app = await startOpstream(
      { ...config, changefeed: { ...config.changefeed, instanceName: name ?? uniqueName('instance') } },
      { processors: defaultProcessors, logger, opsServer: true },
    );
    instances.push(app);
    return app;
  };
  // The first instance creates the containers; the frontend needs them.
  await startInstance('first');
  const database = cosmos.client.database(databaseId);
  // Tests drive many writers per subscription against busy instances on a loaded machine: a write may
  // wait its turn for the subscription lock longer than the simulator's 15 s default without anything being wrong.
  const frontend = new FrontendSimulator({ database, notificationBaseUrl: receiver.url, lockTimeoutMs: 45_000 });
  return {
    cosmos,
    client: cosmos.client,
    database,
    databaseId,
    cs,
    receiver,
    frontend,
    config,
    instances,
    startInstance,
    terminal: async (op, timeoutMs = 60_000) =>
      String(((await receiver.waitForNotification(op.operationId, timeoutMs)).body as { status: unknown }).status),
    close: async () => {
      await Promise.all(instances.map((i) => i.stop()));
      await cosmos.close();
    },
  };
}

/** Reads an Operation document as stored. */
export async function readOperation(h: Harness, op: WrittenOperation): Promise<Record<string, unknown> | undefined> {
  const { resource } = await h.database.container('Operations').item(op.operationId, op.partitionKey).read<Record<string, unknown>>();
  return resource ?? undefined;
}

export async function waitForStatus(
  h: Harness,
  op: WrittenOperation,
  status: string,
  timeoutMs = 30_000,
): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> | undefined;
  await waitFor(
    async () => {
      last = await readOperation(h, op);
      return last?.status === status;
    },
    { timeoutMs, describe: () => `operation ${op.operationId} to be ${status} (is ${String(last?.status)})` },
  );
  return last as Record<string, unknown>;
}

/** The variables the CLI needs to read this stack (`opstream explain`, `leases` …), as an operator exports them. */
export function cliEnv(h: Harness): Record<string, string> {
  return {
    OPSTREAM_COSMOS_ENDPOINT: h.cosmos.emu.endpoint,
    OPSTREAM_COSMOS_KEY: h.cosmos.emu.key,
    OPSTREAM_COSMOS_DATABASE: h.databaseId,
    OPSTREAM_CLUSTERS_SERVICE_URL: h.cs.url,
  };
}

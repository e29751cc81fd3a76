/**
 * What one system under test runs against, all its own so counters stay apart: a Cosmos emulator
 * child process (4 partitions), a CS simulator (in the harness process, seeded per-object
 * durations, every call logged), an ARM notification receiver, and the frontend simulator writing
 * through a counting client. `useDatabase()` switches to a fresh database (one per measurement).
 */
import type { Database } from '@azure/cosmos';
import type { ClustersServiceSimulator, DurationsFor } from '@opstream/clusters-service-simulator';
import { FrontendSimulator, type NotificationReceiver } from '@opstream/frontend-simulator';
import { startLocalStack } from '@opstream/local-stack';
import { ensureContainers } from '../../src/cosmos';
import { CallLog } from './call-log';
import { countingCosmosClient, type CountingClient } from './counting-cosmos-client';
import { startEmulatorProcess, type EmulatorProcess } from './emulator-process';
import type { Target } from './system-under-test';

export const PARTITIONS = 4;

export interface Stack {
  readonly label: string;
  readonly emulator: EmulatorProcess;
  readonly cs: ClustersServiceSimulator;
  readonly callLog: CallLog;
  readonly receiver: NotificationReceiver;
  readonly cosmos: CountingClient;
  /** Current database, its frontend and the target to start systems on. */
  database: Database;
  frontend: FrontendSimulator;
  target: Target;
  /** Creates a fresh database with every container, and a frontend on it. */
  useDatabase(id: string): Promise<void>;
  /** Durations the CS simulator gives each object from now on. */
  setDurationsFor(fn: DurationsFor): void;
  close(): Promise<void>;
}

export interface StackOptions {
  /** The CS simulator publishes its state changes on this Service Bus (topic clusters-service-events). @defaultValue none */
  readonly csServiceBus?: string;
}

export async function startStack(label: string, options: StackOptions = {}): Promise<Stack> {
  const emulator = await startEmulatorProcess(`cosmos emulator (${label})`, PARTITIONS);
  const callLog = new CallLog();
  let durationsFor: DurationsFor = () => undefined;
  // The emulator runs in a process of its own (its CPU apart from the harness's); the rest of the stack here.
  const local = await startLocalStack({
    cosmos: { endpoint: emulator.endpoint, key: emulator.key },
    clustersService: {
      durationsFor: (t) => durationsFor(t),
      onCall: (c) => callLog.record(c),
      ...(options.csServiceBus ? { serviceBus: { connectionString: options.csServiceBus } } : {}),
    },
  });
  const { clustersService: cs, receiver } = local;
  const cosmos = countingCosmosClient(emulator.endpoint, emulator.key);
  const stack: Stack = {
    label,
    emulator,
    cs,
    callLog,
    receiver,
    cosmos,
    database: cosmos.client.database('unset'),
    frontend: new FrontendSimulator({ database: cosmos.client.database('unset') }),
    target: { cosmosEndpoint: emulator.endpoint, cosmosKey: emulator.key, database: 'unset', clustersServiceUrl: cs.url },
    async useDatabase(id) {
      const containers = await ensureContainers(cosmos.client, id, { create: true });
      stack.database = containers.database;
      stack.frontend = new FrontendSimulator({
        database: containers.database,
        notificationBaseUrl: receiver.url,
        owner: `frontend-${label}`,
      });
      stack.target = { ...stack.target, database: id };
    },
    setDurationsFor(fn) {
      durationsFor = fn;
    },
    async close() {
      cosmos.client.dispose();
      await local.close();
      await emulator.stop();
    },
  };
  return stack;
}

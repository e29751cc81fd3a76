import { mkdirSync } from 'node:fs';
import {
  startClustersServiceSimulator,
  type ClustersServiceSimulator,
  type ClustersServiceSimulatorOptions,
} from '@opstream/clusters-service-simulator';
import { startCosmosEmulator, type CosmosEmulator } from '@opstream/cosmos-emulator';
import { startNotificationReceiver, type NotificationReceiver } from '@opstream/frontend-simulator';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';

/**
 * The local stack opstream runs against on one machine: the Cosmos DB emulator (in this process, or
 * one already running elsewhere), the Clusters Service simulator, optionally the Service Bus
 * stand-in, and the receiver that plays ARM for notifications. `opstream start`, the tests and the
 * benchmarks all start it here, and ask it for the settings of an opstream instance pointed at it.
 */
export interface LocalStackOptions {
  /** An emulator started here (the default: 4 partitions, memory only), or one already running (its own process). */
  readonly cosmos?:
    | { readonly port?: number; readonly partitions?: number; readonly dataDir?: string }
    | { readonly endpoint: string; readonly key: string };
  /** The simulator's options; with `publishEvents` it publishes its state changes on the stack's Service Bus. */
  readonly clustersService?: ClustersServiceSimulatorOptions & { readonly publishEvents?: { readonly topic?: string } };
  /** A Service Bus namespace of these entities (official emulator Config.json shape); none without it. */
  readonly serviceBus?: { readonly port?: number; readonly config: unknown };
}

export interface LocalStack {
  readonly cosmos: { readonly endpoint: string; readonly key: string; readonly emulator?: CosmosEmulator };
  readonly clustersService: ClustersServiceSimulator;
  readonly serviceBus?: ServiceBusEmulator;
  readonly receiver: NotificationReceiver;
  /** The settings (by key, as `--flag`s take them) of an opstream instance on this stack, in `database`. */
  settings(database: string): Record<string, string | boolean>;
  close(): Promise<void>;
}

/** Where an opstream instance finds the stack's services. */
export interface StackEndpoints {
  readonly cosmosEndpoint: string;
  readonly cosmosKey: string;
  readonly database: string;
  readonly clustersServiceUrl: string;
  readonly clustersServiceToken?: string;
  readonly serviceBusConnectionString?: string;
}

/**
 * An instance's settings for those endpoints. Notifications may go to loopback: the stack's ARM
 * receiver listens there over http (the development switch; production refuses it).
 */
export function instanceSettings(endpoints: StackEndpoints): Record<string, string | boolean> {
  return {
    'cosmos.endpoint': endpoints.cosmosEndpoint,
    'cosmos.key': endpoints.cosmosKey,
    'cosmos.database': endpoints.database,
    'cosmos.createContainers': true,
    'clustersService.url': endpoints.clustersServiceUrl,
    ...(endpoints.clustersServiceToken ? { 'clustersService.token': endpoints.clustersServiceToken } : {}),
    ...(endpoints.serviceBusConnectionString ? { 'serviceBus.connectionString': endpoints.serviceBusConnectionString } : {}),
    'notifications.allowLoopback': true,
  };
}

/** Settings by key as the OPSTREAM_* variables of a child process (`a.bName` → `OPSTREAM_A_B_NAME`). */
export function settingsEnv(settings: Record<string, string | number | boolean>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings)) {
    env[
      `OPSTREAM_${key
        .replace(/\./g, '_')
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .toUpperCase()}`
    ] = String(value);
  }
  return env;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const started: Array<{ close(): Promise<void> }> = [];
  try {
    const given = options.cosmos && 'endpoint' in options.cosmos ? options.cosmos : undefined;
    let emulator: CosmosEmulator | undefined;
    if (!given) {
      const own = (options.cosmos ?? {}) as { port?: number; partitions?: number; dataDir?: string };
      if (own.dataDir) mkdirSync(own.dataDir, { recursive: true });
      emulator = await startCosmosEmulator({ port: own.port ?? 0, partitions: own.partitions ?? 4, dataDir: own.dataDir });
      started.push(emulator);
    }
    const serviceBus = options.serviceBus
      ? await startServiceBus({ port: options.serviceBus.port ?? 0, config: options.serviceBus.config })
      : undefined;
    if (serviceBus) started.push(serviceBus);
    const { publishEvents, ...csOptions } = options.clustersService ?? {};
    if (publishEvents && !serviceBus)
      throw new Error('clustersService.publishEvents needs the stack to have a Service Bus (serviceBus.config)');
    const clustersService = await startClustersServiceSimulator({
      port: 0,
      ...csOptions,
      ...(publishEvents && serviceBus ? { serviceBus: { connectionString: serviceBus.connectionString, topic: publishEvents.topic } } : {}),
    });
    started.push(clustersService);
    const receiver = await startNotificationReceiver();
    started.push(receiver);
    const cosmos = given ?? { endpoint: emulator!.endpoint, key: emulator!.key, emulator };
    return {
      cosmos,
      clustersService,
      serviceBus,
      receiver,
      settings: (database) =>
        instanceSettings({
          cosmosEndpoint: cosmos.endpoint,
          cosmosKey: cosmos.key,
          database,
          clustersServiceUrl: clustersService.url,
          clustersServiceToken: csOptions.token,
          serviceBusConnectionString: serviceBus?.connectionString,
        }),
      close: () => closeAll(started),
    };
  } catch (err) {
    await closeAll(started);
    throw err;
  }
}

/** Closes in the reverse order of starting; every close is attempted. */
async function closeAll(started: Array<{ close(): Promise<void> }>): Promise<void> {
  for (const s of [...started].reverse()) await s.close().catch(() => undefined);
}

import { MasterKeyAuth } from './auth';
import { EmulatorContext } from './context';
import { CounterSnapshot, Counters } from './counters';
import { FaultRule, Faults, parseFaultRules } from './faults';
import { accountRid } from './rid';
import { EmulatorServer } from './server';
import { Store } from './store';
import { TtlSweeper } from './ttl';

/**
 * A local Cosmos DB endpoint for `@azure/cosmos` 4.9: real HTTP on loopback, several physical
 * partitions, a real change feed, TTL, splits, fault injection and an optional journal. See README.md.
 */
export const WELL_KNOWN_EMULATOR_KEY = 'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';

export interface CosmosEmulatorOptions {
  /** 0 picks a free port. @defaultValue 8081 */
  port?: number;
  /** Physical partitions of every new container. @defaultValue 4 */
  partitions?: number;
  /** Master key (base64). @defaultValue the well-known public emulator key */
  key?: string;
  /** Journal directory; without it everything lives in memory only. */
  dataDir?: string;
  /** Loopback only. @defaultValue 127.0.0.1 */
  host?: '127.0.0.1' | 'localhost' | '::1';
  /** Called with unexpected handler exceptions (they are answered with 500). */
  onInternalError?: (err: unknown) => void;
}

export interface CosmosEmulator {
  /** `http://127.0.0.1:PORT/` */
  readonly endpoint: string;
  readonly key: string;
  readonly host: string;
  readonly port: number;
  readonly dataDir: string | undefined;
  /** Splits a live partition key range in two (same as `POST /_admin/split`). */
  splitRange(databaseId: string, containerId: string, rangeId: string): Promise<{ parent: string; children: string[] }>;
  /** Replaces the fault rules (same as `PUT /_admin/faults`). */
  setFaults(rules: FaultRule | FaultRule[]): void;
  clearFaults(): void;
  counters(): CounterSnapshot;
  resetCounters(): void;
  /** Stops listening, flushes the journal. */
  close(): Promise<void>;
}

export async function startCosmosEmulator(options: CosmosEmulatorOptions = {}): Promise<CosmosEmulator> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') throw new Error(`The emulator listens on loopback only; got host ${String(host)}.`);
  const partitions = options.partitions ?? 4;
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 64) throw new Error(`partitions must be an integer 1…64; got ${partitions}.`);
  const key = options.key ?? WELL_KNOWN_EMULATOR_KEY;
  const auth = new MasterKeyAuth(key);

  const store = new Store(partitions);
  if (options.dataDir) await store.attachJournal(options.dataDir);
  const counters = new Counters();
  const faults = new Faults();
  const account = { id: 'opstream-cosmos-emulator', rid: accountRid(), endpoint: '' };
  const ctx: EmulatorContext = { store, account, counters, faults, partitions };
  const server = new EmulatorServer(ctx, auth, options.onInternalError);
  let port: number;
  try {
    port = await server.listen(host, options.port ?? 8081);
  } catch (err) {
    await store.close();
    throw err;
  }
  const hostInUrl = host === '::1' ? '[::1]' : host;
  const endpoint = `http://${hostInUrl}:${port}/`;
  account.endpoint = endpoint;
  const sweeper = new TtlSweeper(store);
  sweeper.start();

  let closing: Promise<void> | undefined;
  return {
    endpoint,
    key,
    host,
    port,
    dataDir: options.dataDir,
    splitRange: (databaseId, containerId, rangeId) => store.split(databaseId, containerId, rangeId),
    setFaults: (rules) => faults.set(parseFaultRules(rules)),
    clearFaults: () => faults.clear(),
    counters: () => counters.snapshot(),
    resetCounters: () => counters.reset(),
    close: () => {
      closing ??= (async () => {
        sweeper.stop();
        await server.close();
        await store.close();
      })();
      return closing;
    },
  };
}

export type { FaultRule } from './faults';
export type { CounterSnapshot, RequestKind, RequestUnitSnapshot } from './counters';

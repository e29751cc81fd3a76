import { MasterKeyAuth } from './auth';
import { RequestAuthorizer } from './authorizer';
import { ResourceTokens } from './resource-tokens';
import { EntraIdVerifier, type EntraIdOptions } from './entra-id';
import { EmulatorContext } from './context';
import { CounterSnapshot, Counters } from './counters';
import { FaultRule, Faults, parseFaultRules } from './faults';
import { accountRid } from './rid';
import { EmulatorServer } from './server';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '@opstream/stand-in-kit/self-signed-cert';
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
  /** Physical partitions of every new container created without throughput (one with manual throughput gets one per 6,000 RU/s, autoscale one per 10,000 RU/s of its maximum, as on the service). @defaultValue 4 */
  partitions?: number;
  /** Master key (base64). @defaultValue the well-known public emulator key */
  key?: string;
  /** Journal directory; without it everything lives in memory only. */
  dataDir?: string;
  /** Loopback only. @defaultValue 127.0.0.1 */
  host?: '127.0.0.1' | 'localhost' | '::1';
  /** Trust Entra ID tokens (`type=aad`) of this token service, with data-plane RBAC. @defaultValue master key only */
  entraId?: EntraIdOptions;
  /** Refuse master-key requests with 401, as an account with `disableLocalAuth: true` does (admin calls keep the key). */
  disableLocalAuth?: boolean;
  /**
   * Host the account read advertises as its write (and read) location, as a multi-region account
   * names its regional host (`myaccount-westus.documents.azure.com`): a client with endpoint discovery
   * on then sends its requests there. Must reach this emulator (e.g. `localhost` for 127.0.0.1).
   * @defaultValue the host listened on
   */
  advertisedHost?: string;
  /** Host names answered besides loopback ones and the address reached (DNS rebinding: others get 403). */
  allowedHosts?: readonly string[];
  /**
   * Serve HTTPS: `true` makes a self-signed certificate for 127.0.0.1, localhost and ::1 (clients
   * trust `caCertificate`), or give one. `@azure/cosmos` sends Entra ID tokens over https only.
   * @defaultValue plain http
   */
  tls?: boolean | SelfSignedCertificate;
  /** Called with unexpected handler exceptions (they are answered with 500). */
  onInternalError?: (err: unknown) => void;
}

export interface CosmosEmulator {
  /** `http://127.0.0.1:PORT/` */
  readonly endpoint: string;
  readonly key: string;
  /** PEM certificate to trust when serving HTTPS. */
  readonly caCertificate: string | undefined;
  readonly host: string;
  /** The write location the account read advertises (`endpoint` unless `advertisedHost` was given). */
  readonly writeEndpoint: string;
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
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1')
    throw new Error(`The emulator listens on loopback only; got host ${String(host)}.`);
  const partitions = options.partitions ?? 4;
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024)
    throw new Error(`partitions must be an integer 1…1024; got ${partitions}.`);
  const key = options.key ?? WELL_KNOWN_EMULATOR_KEY;
  if (options.advertisedHost !== undefined && !/^[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:]+\]$/.test(options.advertisedHost)) {
    throw new Error(`advertisedHost must be a host name or address without scheme or port; got ${options.advertisedHost}.`);
  }

  const store = new Store(partitions);
  if (options.dataDir) await store.attachJournal(options.dataDir);
  const counters = new Counters();
  const faults = new Faults();
  const account = { id: 'opstream-cosmos-emulator', rid: accountRid(), endpoint: '', locationEndpoint: '' };
  const resourceTokens = new ResourceTokens(key, store);
  const ctx: EmulatorContext = { store, account, counters, faults, partitions, resourceTokens };
  const entra = options.entraId ? new EntraIdVerifier(options.entraId, () => [account.endpoint, account.locationEndpoint]) : undefined;
  const auth = new RequestAuthorizer(
    new MasterKeyAuth(key),
    resourceTokens,
    entra,
    account.id,
    options.disableLocalAuth ?? false,
    options.entraId?.roleAssignments,
  );
  const tls = options.tls === true ? createSelfSignedCertificate() : options.tls || undefined;
  const server = new EmulatorServer(ctx, auth, options.onInternalError, tls, [
    ...(options.allowedHosts ?? []),
    ...(options.advertisedHost ? [options.advertisedHost] : []),
  ]);
  let port: number;
  try {
    port = await server.listen(host, options.port ?? 8081);
  } catch (err) {
    await store.close();
    throw err;
  }
  const hostInUrl = host === '::1' ? '[::1]' : host;
  const scheme = tls ? 'https' : 'http';
  const endpoint = `${scheme}://${hostInUrl}:${port}/`;
  account.endpoint = endpoint;
  account.locationEndpoint = options.advertisedHost ? `${scheme}://${options.advertisedHost}:${port}/` : endpoint;
  const sweeper = new TtlSweeper(store);
  sweeper.start();

  let closing: Promise<void> | undefined;
  return {
    endpoint,
    key,
    caCertificate: tls?.cert,
    host,
    writeEndpoint: account.locationEndpoint,
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
export type { EntraIdOptions } from './entra-id';
export type { CounterSnapshot, RequestKind, RequestUnitSnapshot } from './counters';

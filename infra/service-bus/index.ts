import { startAdmin } from './admin';
import { AuthOptions, Authenticator, EMULATOR_KEY_VALUE, ROOT_KEY_NAME, SharedAccessKey } from './auth';
import { Broker } from './broker';
import { parseConfig } from './config';
import { CounterSnapshot, Counters } from './counters';
import { FaultRule, Faults, parseFaultRules } from './faults';
import { entityStats } from './admin';
import { ServiceBusAmqpServer } from './server';
import { AtomApi } from './atom/api';
import { createAtomServer } from './atom/http';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '@opstream/stand-in-kit/self-signed-cert';

/**
 * A local Service Bus namespace for `@azure/service-bus` 7.9: AMQP 1.0 on loopback (plain TCP as the
 * official emulator, and optionally AMQPS as the real namespace, which the SDK needs for Entra ID),
 * `$cbs` token checks, entities from the official emulator's Config.json, an admin API and an
 * optional journal. See README.md.
 */
export interface ServiceBusEmulatorOptions {
  /** AMQP port; 0 picks a free one. @defaultValue 5672 */
  port?: number;
  /** Admin HTTP port; 0 picks a free one. @defaultValue 0 */
  adminPort?: number;
  /** Loopback only. @defaultValue 127.0.0.1 */
  host?: '127.0.0.1' | 'localhost' | '::1';
  /** The official emulator's Config.json content (parsed JSON). */
  config?: unknown;
  /** Shared access keys. @defaultValue RootManageSharedAccessKey = SAS_KEY_VALUE (the official emulator's) */
  keys?: SharedAccessKey[];
  /** Entra ID tokens (`type: jwt` on $cbs). */
  entraId?: AuthOptions['entraId'];
  /** Refuse SAS tokens (put-token 401 `LocalAuthDisabled`), as a namespace with `disableLocalAuth: true`; Entra ID JWTs still work. */
  disableLocalAuth?: boolean;
  /**
   * Also listen for AMQPS (TLS), as the real namespace does on 5671: `true` makes a self-signed
   * certificate for 127.0.0.1, localhost and ::1 (clients trust `caCertificate`, e.g. through
   * NODE_EXTRA_CA_CERTS), or give one. `@azure/service-bus` uses TLS with every TokenCredential.
   * @defaultValue plain TCP only
   */
  tls?: boolean | SelfSignedCertificate;
  /** AMQPS port, with `tls`; 0 picks a free one. @defaultValue 5671 */
  tlsPort?: number;
  /** Admin bearer key. @defaultValue the first shared access key's value */
  adminKey?: string;
  /** Journal directory; without it everything lives in memory only. */
  dataDir?: string;
  onInternalError?: (err: unknown) => void;
}

export interface ServiceBusEmulator {
  /** `Endpoint=sb://127.0.0.1:PORT;SharedAccessKeyName=…;SharedAccessKey=…;UseDevelopmentEmulator=true` */
  readonly connectionString: string;
  readonly host: string;
  readonly port: number;
  /** With `tls`: the AMQPS port and the custom endpoint address (`amqps://127.0.0.1:PORT`). */
  readonly tlsPort: number | undefined;
  readonly tlsEndpoint: string | undefined;
  /**
   * The PEM certificate to trust: of the AMQPS port, and of the administration API's HTTPS on the AMQP
   * port (`ServiceBusAdministrationClient(connectionString, { tlsOptions: { ca } })`).
   */
  readonly caCertificate: string;
  readonly adminUrl: string;
  readonly adminKey: string;
  setFaults(rules: FaultRule | FaultRule[]): void;
  clearFaults(): void;
  counters(): CounterSnapshot;
  resetCounters(): void;
  entities(): Record<string, unknown>[];
  dropConnections(): number;
  /** Replaces the Entra ID role assignments of one principal (by object id); applies from its next put-token. */
  assignRoles(objectId: string, roles: string[]): void;
  close(): Promise<void>;
}

export async function startServiceBus(options: ServiceBusEmulatorOptions = {}): Promise<ServiceBusEmulator> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1')
    throw new Error(`The Service Bus emulator listens on loopback only; got host ${String(host)}.`);
  const keys = options.keys?.length ? options.keys : [{ name: ROOT_KEY_NAME, key: EMULATOR_KEY_VALUE }];
  const namespace = parseConfig(options.config);
  const broker = new Broker(namespace);
  if (options.dataDir) broker.attachJournal(options.dataDir);
  const counters = new Counters();
  broker.onDuplicateDropped = () => counters.add('duplicatesDropped');
  const faults = new Faults();
  const onInternalError = options.onInternalError ?? (() => undefined);
  const auth = new Authenticator({ keys, entraId: options.entraId, disableLocalAuth: options.disableLocalAuth });
  const amqp = new ServiceBusAmqpServer({ broker, auth, counters, faults, onInternalError });
  let tls = options.tls === true ? createSelfSignedCertificate() : options.tls || undefined;
  // the administration API answers HTTPS on the AMQP port (the SDK sends it to https://<endpoint>), with the
  // TLS certificate, or one made when the first HTTPS client arrives
  const atom = createAtomServer(new AtomApi(broker), auth, onInternalError);
  const certificate = (): SelfSignedCertificate => (tls ??= createSelfSignedCertificate());
  let port: number;
  let tlsPort: number | undefined;
  try {
    [port, tlsPort] = (await amqp.listen(host, [{ port: options.port ?? 5672 }, ...(tls ? [{ port: options.tlsPort ?? 5671, tls }] : [])], {
      server: atom,
      certificate,
    })) as [number, number | undefined];
  } catch (err) {
    await broker.close();
    throw err;
  }
  const adminKey = options.adminKey ?? keys[0].key;
  const admin = await startAdmin(host, options.adminPort ?? 0, {
    broker,
    counters,
    faults,
    auth,
    key: adminKey,
    dropConnections: () => amqp.dropAllConnections(),
  });
  const hostInUrl = host === '::1' ? '[::1]' : host;
  let closing: Promise<void> | undefined;
  return {
    connectionString: `Endpoint=sb://${hostInUrl}:${port};SharedAccessKeyName=${keys[0].name};SharedAccessKey=${keys[0].key};UseDevelopmentEmulator=true`,
    host,
    port,
    tlsPort,
    tlsEndpoint: tlsPort === undefined ? undefined : `amqps://${hostInUrl}:${tlsPort}`,
    get caCertificate() {
      return certificate().cert;
    },
    adminUrl: `http://${hostInUrl}:${admin.port}`,
    adminKey,
    setFaults: (rules) => faults.set(parseFaultRules(rules)),
    clearFaults: () => faults.clear(),
    counters: () => counters.snapshot(),
    resetCounters: () => counters.reset(),
    entities: () => entityStats(broker),
    dropConnections: () => amqp.dropAllConnections(),
    assignRoles: (objectId, roles) => auth.assignRoles(objectId, roles),
    close: () => {
      closing ??= (async () => {
        atom.closeAllConnections();
        await admin.close();
        await amqp.close();
        await broker.close();
      })();
      return closing;
    },
  };
}

export { parseConfig, parseDuration, ConfigError } from './config';
export { ROOT_KEY_NAME, EMULATOR_KEY_VALUE, LOCAL_AUTH_DISABLED } from './auth';
export type { SelfSignedCertificate } from '@opstream/stand-in-kit/self-signed-cert';
export type { SharedAccessKey, EntraIdOptions, Right } from './auth';
export type { FaultRule } from './faults';
export type { CounterSnapshot } from './counters';

import { readFileSync } from 'fs';
import Ajv, { ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { ConfigError } from './config-error';
import { jsonSyntaxProblem } from './json-syntax';
import { expandSubscriptionNames } from './subscription-names';
import { RENAMED_SETTINGS } from './renamed-settings';
import { nearestFileKey } from './nearest-setting';
import { SETTING_SHAPES } from './setting-shapes';
import { redactString } from '../logging/redact';
import { SETTINGS, SettingInfo, configSchema, kebab } from './settings';
import type { OpstreamConfig } from './config-types';

/**
 * Configuration, lowest precedence first: defaults (from the schema) < file (JSON) < environment
 * (`OPSTREAM_*`) < flags. Validated once at start; the first problem stops start-up with a message
 * that names the setting, where it came from, and what is expected.
 */
export interface ConfigSources {
  /** The JSON file (`--config`); when not given, `OPSTREAM_CONFIG` of `env` names it. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Flag values keyed by setting key (`cosmos.endpoint`) as strings or typed values. */
  flags?: Record<string, unknown>;
  /** What `{hostname}` in a subscription setting becomes. @defaultValue the machine's host name */
  hostname?: string;
}

const ajv = new Ajv({ allErrors: false, useDefaults: true, strict: true });
addFormats(ajv);
const validate = ajv.compile<OpstreamConfig>(configSchema);

/** The configuration file: the one named (`--config`), else the one `OPSTREAM_CONFIG` names, if any. */
export function configFileOf(file: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return file ?? (env.OPSTREAM_CONFIG || undefined);
}

export function loadConfig(given: ConfigSources = {}): OpstreamConfig {
  const sources = { ...given, file: configFileOf(given.file, given.env ?? process.env) };
  refuseRenamed(sources);
  const origin = new Map<string, string>();
  const config: Record<string, unknown> = {};
  let fromFile: Record<string, unknown> | undefined;
  if (sources.file) {
    let parsed: unknown;
    const text = readFileSync(sources.file, 'utf8');
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new ConfigError(`config file ${sources.file}: ${jsonSyntaxProblem(text, err)}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new ConfigError(`config file ${sources.file}: must hold a JSON object`);
    fromFile = structuredClone(parsed) as Record<string, unknown>;
    Object.assign(config, parsed);
    for (const s of SETTINGS) if (getPath(config, s.path) !== undefined) origin.set(s.key, `file ${sources.file}`);
  }
  const env = sources.env ?? process.env;
  for (const s of SETTINGS) {
    const raw = env[s.env];
    if (raw === undefined || raw === '') continue;
    setPath(config, s.path, coerce(s, raw, `environment ${s.env}`));
    origin.set(s.key, `environment ${s.env}`);
  }
  for (const [key, value] of Object.entries(sources.flags ?? {})) {
    if (value === undefined) continue;
    const s = SETTINGS.find((x) => x.key === key);
    if (!s) throw new ConfigError(`unknown setting "${key}"`, key);
    setPath(config, s.path, typeof value === 'string' ? coerce(s, value, `flag ${s.flag}`) : value);
    origin.set(s.key, `flag ${s.flag}`);
  }
  if (!validate(config))
    throw new ConfigError(
      describe(validate.errors ?? [], origin, config, sources.file && fromFile ? { path: sources.file, content: fromFile } : undefined),
    );
  checkRelations(config);
  expandSubscriptionNames(config, sources.hostname);
  return config;
}

/**
 * A setting given under a name it no longer has (file key, variable or flag) stops start-up with its
 * new name — silently ignoring it would run with a default the operator did not choose.
 */
function refuseRenamed(sources: ConfigSources): void {
  const env = sources.env ?? process.env;
  let file: Record<string, unknown> | undefined;
  if (sources.file) {
    try {
      file = JSON.parse(readFileSync(sources.file, 'utf8')) as Record<string, unknown>;
    } catch {
      file = undefined; // reported with its cause by loadConfig
    }
  }
  for (const r of RENAMED_SETTINGS) {
    const to = SETTINGS.find((s) => s.key === r.to);
    if (!to) throw new Error(`renamed setting ${r.from} points to unknown ${r.to}`);
    const oldPath = r.from.split('.');
    const oldEnv = `OPSTREAM_${oldPath.map(kebab).join('_').replace(/-/g, '_').toUpperCase()}`;
    const where =
      file && getPath(file, oldPath) !== undefined
        ? `configuration file ${sources.file}`
        : env[oldEnv] !== undefined && env[oldEnv] !== ''
          ? `environment ${oldEnv}`
          : sources.flags && sources.flags[r.from] !== undefined
            ? `flag --${oldPath.map(kebab).join('-')}`
            : undefined;
    if (!where) continue;
    throw new ConfigError(
      `setting ${r.from} (${where}) was renamed ${r.to}${r.unit ? ` and is now in ${r.unit}` : ''}: set ${to.env} or pass ${to.flag}`,
      r.to,
    );
  }
}

/** A required setting that another one can stand in for. */
const SATISFIED_BY: Record<string, string[]> = {
  'cosmos.endpoint': ['cosmos', 'connectionString'],
  'leases.endpoint': ['leases', 'connectionString'],
};

/** Settings a command cannot run without (e.g. `run` needs real endpoints). */
export function requireSettings(config: OpstreamConfig, keys: string[]): void {
  for (const key of keys) {
    const s = SETTINGS.find((x) => x.key === key);
    if (!s) throw new Error(`unknown setting ${key}`);
    const alternative = SATISFIED_BY[key];
    if (alternative && getPath(config as unknown as Record<string, unknown>, alternative) !== undefined) continue;
    if (getPath(config as unknown as Record<string, unknown>, s.path) === undefined) {
      throw new ConfigError(`setting ${key} is required: set ${s.env} or pass ${s.flag}`, key);
    }
  }
}

function checkRelations(c: OpstreamConfig): void {
  if (c.cosmos.connectionString !== undefined && (c.cosmos.key !== undefined || c.cosmos.endpoint !== undefined)) {
    throw new ConfigError(
      `setting cosmos.connectionString names the endpoint and key itself: unset cosmos.${c.cosmos.key !== undefined ? 'key (OPSTREAM_COSMOS_KEY)' : 'endpoint (OPSTREAM_COSMOS_ENDPOINT)'}, or unset OPSTREAM_COSMOS_CONNECTION_STRING`,
      'cosmos.connectionString',
    );
  }
  checkAccount(c.cosmos, 'cosmos');
  checkLeases(c);
  if (c.clustersService.token !== undefined && c.clustersService.tokenFile !== undefined) {
    throw new ConfigError(
      'settings clustersService.token and clustersService.tokenFile are both set: keep one (OPSTREAM_CLUSTERS_SERVICE_TOKEN or OPSTREAM_CLUSTERS_SERVICE_TOKEN_FILE)',
      'clustersService.tokenFile',
    );
  }
  const p = c.changefeed;
  if (p.leaseRenewIntervalMs !== undefined && p.leaseExpirationMs !== undefined && p.leaseRenewIntervalMs >= p.leaseExpirationMs) {
    throw new ConfigError(
      `setting changefeed.leaseRenewIntervalMs (${p.leaseRenewIntervalMs}) must be below changefeed.leaseExpirationMs (${p.leaseExpirationMs}): a lease must be renewed before it expires`,
      'changefeed.leaseRenewIntervalMs',
    );
  }
  if (c.serviceBus.operationEventsLeasePrefix === p.name) {
    throw new ConfigError(
      `setting serviceBus.operationEventsLeasePrefix ("${p.name}") must differ from changefeed.name: the publisher of Operation events keeps leases of its own; unset OPSTREAM_SERVICE_BUS_OPERATION_EVENTS_LEASE_PREFIX for the default ${p.name}-operation-events`,
      'serviceBus.operationEventsLeasePrefix',
    );
  }
  if (c.follow.initialDelayMs > c.follow.maxDelayMs) {
    throw new ConfigError(
      `setting follow.initialDelayMs (${c.follow.initialDelayMs}) must not exceed follow.maxDelayMs (${c.follow.maxDelayMs})`,
      'follow.initialDelayMs',
    );
  }
  if (c.locks.acquireRetryBaseMs > c.locks.acquireRetryMaxMs) {
    throw new ConfigError(
      `setting locks.acquireRetryBaseMs (${c.locks.acquireRetryBaseMs}) must not exceed locks.acquireRetryMaxMs (${c.locks.acquireRetryMaxMs})`,
      'locks.acquireRetryBaseMs',
    );
  }
  if (p.startFrom !== undefined && p.startFrom !== 'beginning' && p.startFrom !== 'now' && Number.isNaN(Date.parse(p.startFrom))) {
    throw new ConfigError(
      `setting changefeed.startFrom ("${p.startFrom}") is not a time: give beginning, now or an RFC 3339 time such as 2026-11-30T10:00:00Z`,
      'changefeed.startFrom',
    );
  }
  if (c.shutdown.drainTimeoutMs >= c.shutdown.timeoutMs) {
    throw new ConfigError(
      `setting shutdown.drainTimeoutMs (${c.shutdown.drainTimeoutMs}) must be below shutdown.timeoutMs (${c.shutdown.timeoutMs}): releasing the leases after the drain needs time too`,
      'shutdown.drainTimeoutMs',
    );
  }
  checkServiceBus(c.serviceBus);
  const host = c.ops.addr.slice(0, c.ops.addr.lastIndexOf(':'));
  if (!isLoopback(host) && !c.ops.token) {
    throw new ConfigError(
      `setting ops.addr (${c.ops.addr}) binds beyond loopback: set ops.token (OPSTREAM_OPS_TOKEN) to protect it`,
      'ops.addr',
    );
  }
}

/** One way to give an account's key: the key, a file holding it, or a connection string. */
function checkAccount(
  a: { endpoint?: string; key?: string; keyFile?: string; connectionString?: string },
  group: 'cosmos' | 'leases',
): void {
  const env = (leaf: string): string => `OPSTREAM_${group.toUpperCase()}_${leaf}`;
  if (a.key !== undefined && a.keyFile !== undefined) {
    throw new ConfigError(
      `settings ${group}.key and ${group}.keyFile are both set: keep one (${env('KEY')} or ${env('KEY_FILE')})`,
      `${group}.keyFile`,
    );
  }
  if (
    group === 'leases' &&
    a.connectionString !== undefined &&
    (a.key !== undefined || a.keyFile !== undefined || a.endpoint !== undefined)
  ) {
    const other = a.endpoint !== undefined ? 'endpoint' : a.key !== undefined ? 'key' : 'keyFile';
    throw new ConfigError(
      `setting ${group}.connectionString names the endpoint and key itself: unset ${group}.${other}, or unset ${env('CONNECTION_STRING')}`,
      `${group}.connectionString`,
    );
  }
  if (group === 'cosmos' && a.connectionString !== undefined && a.keyFile !== undefined) {
    throw new ConfigError(
      `setting cosmos.connectionString names the endpoint and key itself: unset cosmos.keyFile (${env('KEY_FILE')}), or unset ${env('CONNECTION_STRING')}`,
      'cosmos.connectionString',
    );
  }
}

/**
 * The lease container: credentials only with the lease account's endpoint (never sent to the main
 * account by mistake), and never one of opstream's other containers.
 */
function checkLeases(c: OpstreamConfig): void {
  const l = c.leases;
  checkAccount(l, 'leases');
  if ((l.key !== undefined || l.keyFile !== undefined) && l.endpoint === undefined) {
    throw new ConfigError(
      `setting leases.${l.key !== undefined ? 'key' : 'keyFile'} is the key of a lease account of its own, and no lease account is configured: set leases.endpoint (OPSTREAM_LEASES_ENDPOINT), or unset it to keep the leases in the account of cosmos.endpoint`,
      'leases.endpoint',
    );
  }
  const names: Array<[string, string]> = [
    ['cosmos.operationsContainer', c.cosmos.operationsContainer],
    ['cosmos.resourcesContainer', c.cosmos.resourcesContainer],
    ['cosmos.subscriptionsContainer', c.cosmos.subscriptionsContainer],
    ['cosmos.locksContainer', c.cosmos.locksContainer],
    ['cosmos.deadLettersContainer', c.cosmos.deadLettersContainer],
  ];
  const sameDatabase =
    l.endpoint === undefined && l.connectionString === undefined && (l.database ?? c.cosmos.database) === c.cosmos.database;
  if (sameDatabase) names.push(['leases.container', l.container]);
  const seen = new Map<string, string>();
  for (const [key, name] of names) {
    const other = seen.get(name);
    if (other)
      throw new ConfigError(
        `settings ${other} and ${key} both name container "${name}": every container holds documents of one kind; give each its own name`,
        key,
      );
    seen.set(name, key);
  }
}

/** How to name a Service Bus namespace, in every message that asks for one. */
const SERVICE_BUS_NAMESPACE_HINT =
  'set serviceBus.namespace (OPSTREAM_SERVICE_BUS_NAMESPACE, --service-bus-namespace) for Entra ID, or serviceBus.connectionString (OPSTREAM_SERVICE_BUS_CONNECTION_STRING, --service-bus-connection-string)';

function checkServiceBus(sb: OpstreamConfig['serviceBus']): void {
  if (sb.connectionString !== undefined && sb.namespace !== undefined) {
    throw new ConfigError(
      'settings serviceBus.namespace and serviceBus.connectionString are both set: keep one, the namespace for Entra ID (OPSTREAM_SERVICE_BUS_NAMESPACE, --service-bus-namespace) or the connection string for a SAS key (OPSTREAM_SERVICE_BUS_CONNECTION_STRING, --service-bus-connection-string)',
      'serviceBus.namespace',
    );
  }
  if (sb.endpoint !== undefined && sb.namespace === undefined && sb.connectionString === undefined) {
    throw new ConfigError(
      `setting serviceBus.endpoint (OPSTREAM_SERVICE_BUS_ENDPOINT) is where a namespace is reached, and no namespace is configured: ${SERVICE_BUS_NAMESPACE_HINT}`,
      'serviceBus.endpoint',
    );
  }
  if (sb.hints && sb.connectionString === undefined && sb.namespace === undefined) {
    throw new ConfigError(
      `setting serviceBus.hints needs a Service Bus namespace: ${SERVICE_BUS_NAMESPACE_HINT}, or turn hints off (--no-service-bus-hints)`,
      'serviceBus.hints',
    );
  }
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function coerce(s: SettingInfo, raw: string, where: string): unknown {
  if (s.type === 'integer' || s.type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) throw new ConfigError(`setting ${s.key} (${where}): "${raw}" is not a number`, s.key);
    return n;
  }
  if (s.type === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    throw new ConfigError(`setting ${s.key} (${where}): "${raw}" is not a boolean (true/false)`, s.key);
  }
  return raw;
}

function describe(
  errors: ErrorObject[],
  origin: Map<string, string>,
  config: Record<string, unknown>,
  file?: { path: string; content: Record<string, unknown> },
): string {
  const e = errors[0];
  const segments = e.instancePath.split('/').filter(Boolean);
  if (e.keyword === 'additionalProperties') {
    const extra = (e.params as { additionalProperty: string }).additionalProperty;
    const key = [...segments, extra].join('.');
    const inFile = file && getPath(file.content, [...segments, extra]) !== undefined ? ` in configuration file ${file.path}` : '';
    const meant = nearestFileKey(key);
    return `unknown setting "${key}"${inFile}; ${meant ? `did you mean ${meant}?` : `known settings: ${SETTINGS.map((s) => s.key).join(', ')}`}`;
  }
  const key = segments.join('.');
  const s = SETTINGS.find((x) => x.key === key);
  const from = origin.get(key) ?? (s ? `${s.env} / ${s.flag}` : 'configuration');
  // The value as given, URL credentials masked as in logs; a secret setting's never.
  const value = s && !s.secret ? ` (got ${redactString(JSON.stringify(getPath(config, s.path)))})` : '';
  return `setting ${key || '(root)'} (${from}) ${expected(e, key)}${value}`;
}

/** What the schema wants, in words: the allowed values of an enum, the shape of a pattern or format (never the expression). */
function expected(e: ErrorObject, key: string): string {
  if (e.keyword === 'enum') return `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
  if (e.keyword === 'pattern' || e.keyword === 'format') {
    const shape = SETTING_SHAPES[key];
    if (shape) return `must be ${shape}`;
  }
  return e.message ?? 'is invalid';
}

function getPath(obj: Record<string, unknown>, path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = obj;
  for (const p of path.slice(0, -1)) {
    if (!cur[p] || typeof cur[p] !== 'object') cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[path[path.length - 1]] = value;
}

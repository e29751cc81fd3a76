/**
 * Settings of the polling baseline. The connection settings use opstream's environment names
 * (OPSTREAM_COSMOS_*, OPSTREAM_CLUSTERS_SERVICE_URL) so the harness starts both systems the same
 * way; the two intervals are the baseline's own (BASELINE_*), production defaults 30 s and 10 s.
 */
export interface BaselineConfig {
  readonly cosmosEndpoint: string;
  readonly cosmosKey: string;
  /** @defaultValue "opstream" */
  readonly database: string;
  /** Create the database and containers when missing. @defaultValue false */
  readonly createContainers: boolean;
  readonly clustersServiceUrl: string;
  /** Cosmos scan for non-terminal operations. @defaultValue 30 000 */
  readonly scanIntervalMs: number;
  /** Serial pass over the scanned operations (CS call + write-back each). @defaultValue 10 000 */
  readonly passIntervalMs: number;
  /** Subscription lock TTL. @defaultValue 10 */
  readonly lockTtlSeconds: number;
  /** Lock owner name. @defaultValue `baseline-<pid>` */
  readonly owner: string;
  /** Notify loopback receivers (opstream's notifications.allowLoopback, its development switch). @defaultValue false */
  readonly allowLoopbackNotifications?: boolean;
}

const BASELINE_DEFAULTS = Object.freeze({
  database: 'opstream',
  createContainers: false,
  scanIntervalMs: 30_000,
  passIntervalMs: 10_000,
  lockTtlSeconds: 10,
});

class BaselineConfigError extends Error {
  override readonly name = 'BaselineConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

function required(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new BaselineConfigError(`${name} is required`);
  return value;
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new BaselineConfigError(`${name} must be a positive whole number, got ${JSON.stringify(raw)}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new BaselineConfigError(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

export function baselineConfigFromEnv(env: Env = process.env): BaselineConfig {
  return {
    cosmosEndpoint: required(env, 'OPSTREAM_COSMOS_ENDPOINT'),
    cosmosKey: required(env, 'OPSTREAM_COSMOS_KEY'),
    database: env.OPSTREAM_COSMOS_DATABASE || BASELINE_DEFAULTS.database,
    createContainers: bool(env, 'OPSTREAM_COSMOS_CREATE_CONTAINERS', BASELINE_DEFAULTS.createContainers),
    clustersServiceUrl: required(env, 'OPSTREAM_CLUSTERS_SERVICE_URL'),
    scanIntervalMs: positiveInt(env, 'BASELINE_SCAN_INTERVAL_MS', BASELINE_DEFAULTS.scanIntervalMs),
    passIntervalMs: positiveInt(env, 'BASELINE_PASS_INTERVAL_MS', BASELINE_DEFAULTS.passIntervalMs),
    lockTtlSeconds: Math.ceil(positiveInt(env, 'OPSTREAM_LOCKS_TTL_MS', BASELINE_DEFAULTS.lockTtlSeconds * 1000) / 1000),
    owner: env.OPSTREAM_CHANGEFEED_INSTANCE_NAME || `baseline-${process.pid}`,
    allowLoopbackNotifications: bool(env, 'OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK', false),
  };
}

/**
 * The validated configuration. Mirrors `schemas/config.schema.json`; `test/unit/config` fails when
 * a setting exists on one side only.
 */
export interface OpstreamConfig {
  cosmos: { endpoint?: string; key?: string; database: string; createContainers: boolean };
  clustersService: { url?: string; token?: string; timeoutMs: number };
  processor: {
    name: string;
    instanceName?: string;
    startFrom?: string;
    maxItemCount: number;
    leaseAcquireIntervalMs: number;
    leaseRenewIntervalMs: number;
    leaseExpirationMs: number;
    maxPollDelayMs: number;
    maxLeasesPerInstance?: number;
  };
  pipeline: {
    concurrency: number;
    maxHandlerAttempts: number;
    relistIntervalMs: number;
    createDeadlineMs: number;
    deleteDeadlineMs: number;
    inflightCreateGraceMs?: number;
    notificationClaimMs: number;
  };
  follow: {
    initialDelayMs: number;
    maxDelayMs: number;
    batchWindowMs: number;
    batchTickMs: number;
    firstCheckHitRatio: number;
  };
  locks: { ttlMs: number; acquireRetryBaseMs: number; acquireRetryMaxMs: number };
  ops: { addr: string; token?: string; metricsAddr?: string };
  shutdown: { drainTimeoutMs: number; timeoutMs: number };
  tracing: { otlpEndpoint?: string };
  log: { level: 'error' | 'warn' | 'info' | 'debug'; format?: 'json' | 'pretty' };
}

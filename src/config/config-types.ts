/**
 * The validated configuration. Mirrors `schemas/config.schema.json`; `test/unit/config` fails when
 * a setting exists on one side only.
 */
export interface OpstreamConfig {
  cosmos: {
    endpoint?: string;
    key?: string;
    keyFile?: string;
    connectionString?: string;
    database: string;
    operationsContainer: string;
    resourcesContainer: string;
    subscriptionsContainer: string;
    locksContainer: string;
    deadLettersContainer: string;
    createContainers: boolean;
    caFile?: string;
    preferredLocations?: string;
  };
  leases: { container: string; database?: string; endpoint?: string; key?: string; keyFile?: string; connectionString?: string };
  clustersService: { url?: string; token?: string; tokenFile?: string; timeoutMs: number };
  changefeed: {
    name: string;
    instanceName?: string;
    startFrom?: string;
    maxItemCount: number;
    leaseAcquireIntervalMs: number;
    otherProcessorsIntervalMs: number;
    leaseRenewIntervalMs: number;
    leaseExpirationMs: number;
    maxPollDelayMs: number;
    activeWindowMs: number;
    activePollDelayMs: number;
    pollDelayRampSteps: number;
    checkpointIntervalMs: number;
    maxLeasesPerInstance?: number;
  };
  pipeline: {
    concurrency: number;
    maxHandlerAttempts: number;
    relistIntervalMs: number;
    maxScheduled: number;
    startedFirst: boolean;
    createDeadlineMs: number;
    deleteDeadlineMs: number;
    inflightCreateGraceMs?: number;
    notificationClaimMs: number;
  };
  notifications: {
    allowedHostSuffixes: string;
    allowLoopback: boolean;
    timeoutMs: number;
    deadlineMs: number;
    retryMaxDelayMs: number;
    concurrency?: number;
  };
  follow: {
    initialDelayMs: number;
    maxDelayMs: number;
    batchWindowMs: number;
    batchTickMs: number;
    firstCheckHitRatio: number;
    updateCooldownMs: number;
  };
  serviceBus: {
    connectionString?: string;
    namespace?: string;
    endpoint?: string;
    clustersServiceTopic: string;
    clustersServiceSubscription: string;
    followDelayMs: number;
    publishOperationEvents: boolean;
    operationEventsTopic: string;
    operationEventsLeasePrefix?: string;
    hints: boolean;
    hintsEntity: string;
    hintsSubscription?: string;
    hintsMaxPollDelayMs: number;
  };
  locks: { ttlMs: number; acquireRetryBaseMs: number; acquireRetryMaxMs: number };
  ops: { addr: string; token?: string; metricsAddr?: string; advertiseUrl?: string; maxStreamClients: number; trustedUrls?: string };
  shutdown: { drainTimeoutMs: number; timeoutMs: number };
  tracing: { otlpEndpoint?: string };
  log: { level: 'error' | 'warn' | 'info' | 'debug'; format?: 'json' | 'pretty' };
}

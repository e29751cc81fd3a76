import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { loadConfig, requireSettings } from '../../../src/config/load-config';
import { SETTINGS } from '../../../src/config/settings';
import { OpstreamConfig } from '../../../src/config/config-types';

function leafKeys(obj: object, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v) ? leafKeys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

describe('loadConfig', () => {
  it('fills every default from the schema', () => {
    const c = loadConfig({ env: {} });
    expect(c.cosmos.database).toBe('opstream');
    expect(c.follow.maxDelayMs).toBe(10_000);
    expect(c.locks.ttlMs).toBe(10_000);
    expect(c.ops.addr).toBe('127.0.0.1:9464');
    expect(c.ops.metricsAddr).toBeUndefined();
    expect(c.ops.maxStreamClients).toBe(64);
    expect(c.shutdown).toEqual({ drainTimeoutMs: 15_000, timeoutMs: 25_000 });
    expect(c.serviceBus).toEqual({
      clustersServiceTopic: 'clusters-service-events',
      clustersServiceSubscription: 'opstream',
      followDelayMs: 30_000,
      publishOperationEvents: true,
      operationEventsTopic: 'operation-events',
      hints: false,
      hintsEntity: 'operation-hints',
      hintsMaxPollDelayMs: 5_000,
    });
  });

  it('the TypeScript type and the schema name the same settings', () => {
    const full: OpstreamConfig = {
      cosmos: {
        endpoint: 'http://a',
        key: 'k',
        keyFile: 'key',
        connectionString: 'AccountEndpoint=http://a;AccountKey=k;',
        database: 'd',
        operationsContainer: 'O',
        resourcesContainer: 'R',
        subscriptionsContainer: 'S',
        locksContainer: 'L',
        deadLettersContainer: 'D',
        createContainers: true,
        caFile: 'ca.pem',
        preferredLocations: 'East US',
      },
      leases: {
        container: 'Leases',
        database: 'l',
        endpoint: 'http://c',
        key: 'k',
        keyFile: 'key',
        connectionString: 'AccountEndpoint=http://c;AccountKey=k;',
      },
      clustersService: { url: 'http://b', token: 't'.repeat(16), tokenFile: 'token', timeoutMs: 1000 },
      changefeed: {
        name: 'p',
        instanceName: 'i',
        startFrom: 'now',
        maxItemCount: 1,
        leaseAcquireIntervalMs: 100,
        otherProcessorsIntervalMs: 0,
        leaseRenewIntervalMs: 100,
        leaseExpirationMs: 300,
        maxPollDelayMs: 0,
        activeWindowMs: 0,
        activePollDelayMs: 0,
        pollDelayRampSteps: 0,
        checkpointIntervalMs: 0,
        maxLeasesPerInstance: 1,
      },
      pipeline: {
        concurrency: 1,
        maxHandlerAttempts: 1,
        relistIntervalMs: 1000,
        maxScheduled: 1,
        startedFirst: false,
        createDeadlineMs: 1000,
        deleteDeadlineMs: 1000,
        inflightCreateGraceMs: 0,
        notificationClaimMs: 30000,
      },
      notifications: {
        allowedHostSuffixes: 'management.azure.com',
        allowLoopback: true,
        timeoutMs: 1000,
        deadlineMs: 1000,
        retryMaxDelayMs: 100,
        concurrency: 1,
      },
      follow: { initialDelayMs: 0, maxDelayMs: 10, firstCheckHitRatio: 0.5, batchWindowMs: 0, batchTickMs: 0, updateCooldownMs: 60000 },
      serviceBus: {
        connectionString: 'Endpoint=sb://x/;SharedAccessKeyName=k;SharedAccessKey=s',
        namespace: 'x.servicebus.windows.net',
        endpoint: 'amqps://127.0.0.1:5671',
        clustersServiceTopic: 't',
        clustersServiceSubscription: 's',
        followDelayMs: 1,
        publishOperationEvents: true,
        operationEventsTopic: 'o',
        operationEventsLeasePrefix: 'p-events',
        hints: true,
        hintsEntity: 'h',
        hintsSubscription: 'hs',
        hintsMaxPollDelayMs: 1,
      },
      locks: { ttlMs: 2000, acquireRetryBaseMs: 1, acquireRetryMaxMs: 1 },
      ops: {
        addr: '127.0.0.1:1',
        token: 'x'.repeat(16),
        metricsAddr: '127.0.0.1:2',
        maxStreamClients: 1,
        trustedUrls: 'https://ops.example:9464',
        advertiseUrl: 'http://10.244.1.7:9464',
      },
      shutdown: { drainTimeoutMs: 1, timeoutMs: 2 },
      tracing: { otlpEndpoint: 'http://127.0.0.1:4318' },
      log: { level: 'info', format: 'json' },
    };
    expect(leafKeys(full).sort()).toEqual(SETTINGS.map((s) => s.key).sort());
  });

  it('layers file < environment < flags, coercing strings by type', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opstream-config-'));
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ cosmos: { database: 'fromfile', createContainers: true }, pipeline: { concurrency: 3 } }));
    const c = loadConfig({
      file,
      env: { OPSTREAM_COSMOS_DATABASE: 'fromenv', OPSTREAM_PIPELINE_CONCURRENCY: '7', OPSTREAM_COSMOS_CREATE_CONTAINERS: 'false' },
      flags: { 'cosmos.database': 'fromflag' },
    });
    expect(c.cosmos.database).toBe('fromflag');
    expect(c.pipeline.concurrency).toBe(7);
    expect(c.cosmos.createContainers).toBe(false);
  });

  it.each([
    [
      { OPSTREAM_PIPELINE_CONCURRENCY: 'many' },
      'setting pipeline.concurrency (environment OPSTREAM_PIPELINE_CONCURRENCY): "many" is not a number',
    ],
    [
      { OPSTREAM_PIPELINE_CONCURRENCY: '0' },
      'setting pipeline.concurrency (environment OPSTREAM_PIPELINE_CONCURRENCY) must be >= 1 (got 0)',
    ],
    [
      { OPSTREAM_COSMOS_ENDPOINT: 'not a url' },
      'setting cosmos.endpoint (environment OPSTREAM_COSMOS_ENDPOINT) must be a URL starting with https:// (http:// only for a key-authenticated local emulator), such as https://myaccount.documents.azure.com:443/ (got "not a url")',
    ],
    [
      { OPSTREAM_LOG_LEVEL: 'loud' },
      'setting log.level (environment OPSTREAM_LOG_LEVEL) must be one of error, warn, info, debug (got "loud")',
    ],
    [{ OPSTREAM_LOG_FORMAT: 'text' }, 'setting log.format (environment OPSTREAM_LOG_FORMAT) must be one of json, pretty (got "text")'],
    [
      { OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: '60000', OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: '30000' },
      'setting changefeed.leaseRenewIntervalMs (60000) must be below changefeed.leaseExpirationMs (30000)',
    ],
    [{ OPSTREAM_OPS_ADDR: '0.0.0.0:9464' }, 'setting ops.addr (0.0.0.0:9464) binds beyond loopback: set ops.token'],
    [
      { OPSTREAM_SHUTDOWN_DRAIN_TIMEOUT_MS: '30000', OPSTREAM_SHUTDOWN_TIMEOUT_MS: '25000' },
      'setting shutdown.drainTimeoutMs (30000) must be below shutdown.timeoutMs (25000)',
    ],
    [
      { OPSTREAM_OPS_METRICS_ADDR: '9465' },
      'setting ops.metricsAddr (environment OPSTREAM_OPS_METRICS_ADDR) must be host:port, such as 0.0.0.0:9465 (got "9465")',
    ],
    [
      { OPSTREAM_CHANGEFEED_START_FROM: 'yesterday' },
      'setting changefeed.startFrom (environment OPSTREAM_CHANGEFEED_START_FROM) must be beginning, now or an RFC 3339 time such as 2026-11-30T10:00:00Z (got "yesterday")',
    ],
    // The value is quoted back, its credentials masked as in logs.
    [
      { OPSTREAM_TRACING_OTLP_ENDPOINT: 'ftp://otel:hunter2@collector:4318' },
      'setting tracing.otlpEndpoint (environment OPSTREAM_TRACING_OTLP_ENDPOINT) must be a URL starting with http:// or https://, such as http://otel-collector:4318 (got "ftp://otel:***@collector:4318")',
    ],
    [
      { OPSTREAM_LOCKS_ACQUIRE_RETRY_BASE_MS: '600', OPSTREAM_LOCKS_ACQUIRE_RETRY_MAX_MS: '500' },
      'setting locks.acquireRetryBaseMs (600) must not exceed locks.acquireRetryMaxMs (500)',
    ],
    [{ OPSTREAM_LOCKS_TTL_MS: '2500' }, 'setting locks.ttlMs (environment OPSTREAM_LOCKS_TTL_MS) must be multiple of 1000 (got 2500)'],
    [{ OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '20000' }, 'setting follow.initialDelayMs (20000) must not exceed follow.maxDelayMs (10000)'],
    [
      { OPSTREAM_SERVICE_BUS_HINTS: 'true' },
      'setting serviceBus.hints needs a Service Bus namespace: set serviceBus.namespace (OPSTREAM_SERVICE_BUS_NAMESPACE, --service-bus-namespace) for Entra ID, or serviceBus.connectionString (OPSTREAM_SERVICE_BUS_CONNECTION_STRING, --service-bus-connection-string), or turn hints off (--no-service-bus-hints)',
    ],
  ])('refuses a bad value with one line naming the setting: %j', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  it.each([
    [
      { env: { OPSTREAM_PIPELINE_FOLLOW_MAX_DELAY_MS: '500' } },
      'setting pipeline.followMaxDelayMs (environment OPSTREAM_PIPELINE_FOLLOW_MAX_DELAY_MS) was renamed follow.maxDelayMs: set OPSTREAM_FOLLOW_MAX_DELAY_MS or pass --follow-max-delay-ms',
    ],
    [
      { env: { OPSTREAM_PIPELINE_LOCK_TTL_SECONDS: '5' } },
      'was renamed locks.ttlMs and is now in milliseconds: set OPSTREAM_LOCKS_TTL_MS or pass --locks-ttl-ms',
    ],
    [
      { env: {}, flags: { 'pipeline.createDeadlineMinutes': '5' } },
      'setting pipeline.createDeadlineMinutes (flag --pipeline-create-deadline-minutes) was renamed pipeline.createDeadlineMs and is now in milliseconds',
    ],
  ])('a setting under its old name is refused with its new one: %j', (sources, message) => {
    expect(() => loadConfig(sources)).toThrow(message);
  });

  it('a renamed setting in a configuration file names the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opstream-config-'));
    const file = join(dir, 'old.json');
    writeFileSync(file, JSON.stringify({ pipeline: { followBatchTickMs: 0 } }));
    expect(() => loadConfig({ file, env: {} })).toThrow(
      `setting pipeline.followBatchTickMs (configuration file ${file}) was renamed follow.batchTickMs`,
    );
  });

  it('never echoes a secret value in an error', () => {
    let message = '';
    try {
      loadConfig({ env: { OPSTREAM_OPS_TOKEN: 'short' } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('setting ops.token');
    expect(message).not.toContain('short"');
  });

  it('refuses a Service Bus connection string that is not one, without echoing it', () => {
    const env = { OPSTREAM_SERVICE_BUS_CONNECTION_STRING: 'SharedAccessKey=hunter2' };
    expect(() => loadConfig({ env })).toThrow(
      'setting serviceBus.connectionString (environment OPSTREAM_SERVICE_BUS_CONNECTION_STRING) must be a connection string of the form Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=…',
    );
    expect(() => loadConfig({ env })).not.toThrow(/hunter2/);
  });

  it.each([
    [{ cosmos: { endpiont: 'http://x' } }, 'unknown setting "cosmos.endpiont" in configuration file FILE; did you mean cosmos.endpoint?'],
    [{ cosmos: { databse: 'db' } }, 'unknown setting "cosmos.databse" in configuration file FILE; did you mean cosmos.database?'],
    [{ cosmos: { Database: 'db' } }, 'unknown setting "cosmos.Database" in configuration file FILE; did you mean cosmos.database?'],
    // In the wrong place: the one setting of that name.
    [{ database: 'db' }, 'unknown setting "database" in configuration file FILE; did you mean cosmos.database?'],
    [{ cosmo: { database: 'db' } }, 'unknown setting "cosmo" in configuration file FILE; did you mean cosmos?'],
    [
      { pipeline: { concurency: 8 } },
      'unknown setting "pipeline.concurency" in configuration file FILE; did you mean pipeline.concurrency?',
    ],
  ])('names an unknown setting in a file and the known one it most likely meant: %j', (content, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'opstream-config-'));
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify(content));
    expect(() => loadConfig({ file, env: {} })).toThrow(message.replace('FILE', file));
  });

  it('an unknown setting like none lists the known ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opstream-config-'));
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ cosmos: { frobnicate: true } }));
    expect(() => loadConfig({ file, env: {} })).toThrow(
      `unknown setting "cosmos.frobnicate" in configuration file ${file}; known settings: cosmos.endpoint, cosmos.key, `,
    );
  });

  it('requireSettings says which variable or flag to set', () => {
    const c = loadConfig({ env: {} });
    expect(() => requireSettings(c, ['cosmos.endpoint'])).toThrow(
      'setting cosmos.endpoint is required: set OPSTREAM_COSMOS_ENDPOINT or pass --cosmos-endpoint',
    );
  });
});

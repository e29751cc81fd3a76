import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runCli } from '../../helpers/cli';

const KEY = 'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';
const CS_TOKEN = 'cs-secret-token-that-must-not-show';

describe('opstream config check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opstream-config-'));

  it('prints the settings in force with their source, secrets masked, and exits 0', async () => {
    const file = join(dir, 'good.json');
    writeFileSync(file, JSON.stringify({ pipeline: { concurrency: 8 }, clustersService: { url: 'http://127.0.0.1:8000' } }));
    const result = await runCli(['config', 'check', '--config', file, '--log-level', 'debug', '--for', 'run'], {
      OPSTREAM_COSMOS_ENDPOINT: 'https://acct.documents.azure.com:443/',
      OPSTREAM_COSMOS_KEY: KEY,
      OPSTREAM_CLUSTERS_SERVICE_TOKEN: CS_TOKEN,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const rows = new Map(
      result.stdout
        .trim()
        .split('\n')
        .slice(1, -1)
        .map((l) => [l.split(/\s+/)[0], l.split(/\s{2,}/)]),
    );
    expect(rows.get('cosmos.endpoint')).toEqual([
      'cosmos.endpoint',
      'https://acct.documents.azure.com:443/',
      'environment',
      'OPSTREAM_COSMOS_ENDPOINT',
    ]);
    expect(rows.get('cosmos.key')).toEqual(['cosmos.key', '***', 'environment', 'OPSTREAM_COSMOS_KEY']);
    expect(rows.get('clustersService.token')).toEqual(['clustersService.token', '***', 'environment', 'OPSTREAM_CLUSTERS_SERVICE_TOKEN']);
    expect(rows.get('pipeline.concurrency')).toEqual(['pipeline.concurrency', '8', 'file', 'OPSTREAM_PIPELINE_CONCURRENCY']);
    expect(rows.get('log.level')).toEqual(['log.level', 'debug', 'flag', 'OPSTREAM_LOG_LEVEL']);
    expect(rows.get('ops.addr')).toEqual(['ops.addr', '127.0.0.1:9464', 'default', 'OPSTREAM_OPS_ADDR']);
    expect(rows.get('ops.token')).toEqual(['ops.token', '-', 'unset', 'OPSTREAM_OPS_TOKEN']);
    expect(result.stdout).toMatch(/\nconfiguration is valid for "opstream run"\n$/);
    expect(result.stdout).not.toContain(KEY);
    expect(result.stdout).not.toContain(CS_TOKEN);
  });

  it('OPSTREAM_CONFIG names the file when --config is not given: read, not warned about; --config wins over it', async () => {
    const named = join(dir, 'named.json');
    writeFileSync(named, JSON.stringify({ pipeline: { concurrency: 7 } }));
    const flagged = join(dir, 'flagged.json');
    writeFileSync(flagged, JSON.stringify({ pipeline: { concurrency: 9 } }));
    const byVariable = await runCli(['config', 'check', '--json'], { OPSTREAM_CONFIG: named });
    expect(byVariable.stderr).toBe('');
    expect(byVariable.code).toBe(0);
    const settings = JSON.parse(byVariable.stdout) as Array<{ key: string; value: unknown; source: string }>;
    expect(settings.find((s) => s.key === 'pipeline.concurrency')).toMatchObject({ value: 7, source: 'file' });
    const byFlag = await runCli(['config', 'check', '--json', '--config', flagged], { OPSTREAM_CONFIG: named });
    expect(byFlag.code).toBe(0);
    const flaggedSettings = JSON.parse(byFlag.stdout) as Array<{ key: string; value: unknown }>;
    expect(flaggedSettings.find((s) => s.key === 'pipeline.concurrency')).toMatchObject({ value: 9 });
    const missing = await runCli(['config', 'check'], { OPSTREAM_CONFIG: join(dir, 'missing.json') });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('missing.json');
  });

  it('--json gives every setting with key, value, source, env and flag', async () => {
    const result = await runCli(['config', 'check', '--json'], { OPSTREAM_OPS_TOKEN: 'ops-token-ops-token-1234' });
    expect(result.code).toBe(0);
    const settings = JSON.parse(result.stdout) as Array<{ key: string; value: unknown; source: string; env: string; flag: string }>;
    expect(settings.find((s) => s.key === 'ops.token')).toEqual({
      key: 'ops.token',
      value: '***',
      source: 'environment',
      env: 'OPSTREAM_OPS_TOKEN',
      flag: '--ops-token',
      secret: true,
    });
    expect(settings.find((s) => s.key === 'locks.ttlMs')).toMatchObject({ value: 10000, source: 'default' });
  });

  it.each([
    [
      'a value of the wrong type',
      ['config', 'check'],
      { OPSTREAM_PIPELINE_CONCURRENCY: 'many' },
      'opstream: setting pipeline.concurrency (environment OPSTREAM_PIPELINE_CONCURRENCY): "many" is not a number',
    ],
    [
      'a value out of range',
      ['config', 'check', '--locks-ttl-ms', '1000'],
      {},
      'opstream: setting locks.ttlMs (flag --locks-ttl-ms) must be >= 2000 (got 1000)',
    ],
    [
      'a missing setting a command needs',
      ['config', 'check', '--for', 'run'],
      {},
      'opstream: setting cosmos.endpoint is required: set OPSTREAM_COSMOS_ENDPOINT or pass --cosmos-endpoint',
    ],
    [
      'an ops server beyond loopback without a token',
      ['config', 'check', '--ops-addr', '0.0.0.0:9464'],
      {},
      'opstream: setting ops.addr (0.0.0.0:9464) binds beyond loopback: set ops.token (OPSTREAM_OPS_TOKEN) to protect it',
    ],
    [
      'lease renewal not below expiry',
      ['config', 'check'],
      { OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: '5000', OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: '5000' },
      'opstream: setting changefeed.leaseRenewIntervalMs (5000) must be below changefeed.leaseExpirationMs (5000): a lease must be renewed before it expires',
    ],
  ])('exits 78 with one line for %s', async (_what, args, env, message) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(78);
    expect(result.stderr).toBe(`${message}\n`);
    expect(result.stdout).toBe('');
  });

  it('exits 78 for an unknown setting in the file, naming it, and for a file that is not JSON', async () => {
    const unknown = join(dir, 'unknown.json');
    writeFileSync(unknown, JSON.stringify({ pipeline: { concurency: 8 } }));
    const a = await runCli(['config', 'check', '--config', unknown]);
    expect(a.code).toBe(78);
    expect(a.stderr).toBe(
      `opstream: unknown setting "pipeline.concurency" in configuration file ${unknown}; did you mean pipeline.concurrency?\n`,
    );
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "pipeline": ');
    const b = await runCli(['config', 'check', '--config', broken]);
    expect(b.code).toBe(78);
    expect(b.stderr).toMatch(new RegExp(`^opstream: config file ${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .*JSON`));
    expect(b.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('never prints a secret given on the command line, even in an error', async () => {
    const result = await runCli(['config', 'check', '--cosmos-key', KEY, '--cosmos-endpoint', 'not a url']);
    expect(result.code).toBe(78);
    expect(result.stderr).toBe(
      'opstream: setting cosmos.endpoint (flag --cosmos-endpoint) must be a URL starting with https:// (http:// only for a key-authenticated local emulator), such as https://myaccount.documents.azure.com:443/ (got "not a url")\n',
    );
    expect(result.stderr + result.stdout).not.toContain(KEY);
    const short = await runCli(['config', 'check', '--ops-token', 'short-secret']);
    expect(short.code).toBe(78);
    expect(short.stderr).toBe('opstream: setting ops.token (flag --ops-token) must NOT have fewer than 16 characters\n');
  });

  it('an enum names its allowed values and a pattern its shape in words, never the expression', async () => {
    const level = await runCli(['config', 'check', '--log-level', 'verbose']);
    expect(level.code).toBe(78);
    expect(level.stderr).toBe('opstream: setting log.level (flag --log-level) must be one of error, warn, info, debug (got "verbose")\n');
    const addr = await runCli(['config', 'check'], { OPSTREAM_OPS_METRICS_ADDR: '9465' });
    expect(addr.code).toBe(78);
    expect(addr.stderr).toBe(
      'opstream: setting ops.metricsAddr (environment OPSTREAM_OPS_METRICS_ADDR) must be host:port, such as 0.0.0.0:9465 (got "9465")\n',
    );
  });

  it('an OPSTREAM_* variable that names no setting is a warning naming the nearest one; the check still passes', async () => {
    const result = await runCli(['config', 'check'], { OPSTREAM_COSMOS_DATABSE: 'orders' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'opstream: warning: environment variable OPSTREAM_COSMOS_DATABSE names no setting and is ignored; did you mean OPSTREAM_COSMOS_DATABASE (cosmos.database)?\n',
    );
    expect(result.stdout).toMatch(/\ncosmos\.database +opstream +default /);
  });

  it('masks the credentials of a URL setting, in the table and in an error', async () => {
    const result = await runCli(['config', 'check', '--json'], {
      OPSTREAM_CLUSTERS_SERVICE_URL: 'https://opstream:hunter2@clusters.example:8443/',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('hunter2');
    const settings = JSON.parse(result.stdout) as Array<{ key: string; value: unknown }>;
    expect(settings.find((s) => s.key === 'clustersService.url')?.value).toBe('https://opstream:***@clusters.example:8443/');
    const bad = await runCli(['config', 'check', '--tracing-otlp-endpoint', 'ftp://otel:hunter2@collector:4318']);
    expect(bad.code).toBe(78);
    expect(bad.stderr).not.toContain('hunter2');
    expect(bad.stderr).toContain('(got "ftp://otel:***@collector:4318")');
  });

  it('Entra ID (no key) with an http:// endpoint is refused at once by config check and by run (exit 78), naming the ways out', async () => {
    const env = { OPSTREAM_COSMOS_ENDPOINT: 'http://127.0.0.1:9/', OPSTREAM_CLUSTERS_SERVICE_URL: 'http://127.0.0.1:9' };
    const message =
      "opstream: setting cosmos.endpoint (http://127.0.0.1:9/) is not https, and Entra ID tokens need https (the Azure SDK sends none over http): point OPSTREAM_COSMOS_ENDPOINT at the account's https port, or use a key for a local emulator (OPSTREAM_COSMOS_KEY, --cosmos-key)\n";
    const check = await runCli(['config', 'check', '--for', 'run'], env);
    expect(check.code).toBe(78);
    expect(check.stderr).toBe(message);
    expect(check.stdout).toBe('');
    // run stops before any request: no retries (nothing listens on port 9 anyway); its start-up log warns of a misspelt variable first.
    const started = Date.now();
    const run = await runCli(['run', '--log-format', 'json'], { ...env, OPSTREAM_LOG_SILENT: '0', OPSTREAM_CHANGFEED_NAME: 'typo' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.code).toBe(78);
    const lines = run.stderr.trim().split('\n');
    expect(`${lines[lines.length - 1]}\n`).toBe(message);
    const warnings = lines
      .slice(0, -1)
      .map((l) => JSON.parse(l) as { level: string; message: string; variable?: string; nearest?: string })
      .filter((l) => l.level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({
        message:
          'environment variable OPSTREAM_CHANGFEED_NAME names no setting and is ignored; did you mean OPSTREAM_CHANGEFEED_NAME (changefeed.name)?',
        variable: 'OPSTREAM_CHANGFEED_NAME',
        nearest: 'OPSTREAM_CHANGEFEED_NAME',
      }),
    ]);
    // With a key the same endpoint is fine (the local emulator over http).
    const withKey = await runCli(['config', 'check', '--for', 'run'], { ...env, OPSTREAM_COSMOS_KEY: KEY });
    expect(withKey.code).toBe(0);
  });
});

import { runCli } from '../../helpers/cli';
import { startRunningInstance, type RunningInstance } from '../../helpers/running-instance';
import { uniqueName } from '../../helpers/wait-for';

interface LeaseJson {
  processorName: string;
  leases: Array<{ leaseToken: string; owner: string | null; continuation: string | null; expired: boolean; lag: number | null }>;
  totalLag: number;
}

describe('opstream leases and lag against a running instance', () => {
  let instance: RunningInstance;
  beforeAll(async () => {
    instance = await startRunningInstance();
    const sub = crypto.randomUUID();
    await instance.frontend.registerSubscription(sub, crypto.randomUUID());
    const op = await instance.frontend.createCluster(sub, 'rg', uniqueName('c'));
    await instance.terminal(op);
  });
  afterAll(() => instance?.close());

  it('leases --json lists every lease with this instance as owner, a checkpoint and its lag', async () => {
    const result = await runCli(['leases', '--json'], instance.cliEnv);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as LeaseJson;
    expect(report.processorName).toBe('opstream');
    expect(report.leases).toHaveLength(4); // the emulator's 4 partitions
    for (const lease of report.leases) {
      expect(lease).toMatchObject({ owner: instance.app.instanceName, expired: false });
      expect(typeof lease.lag).toBe('number');
    }
    expect(report.leases.some((l) => l.continuation !== null)).toBe(true);
    expect(report.totalLag).toBe(report.leases.reduce((s, l) => s + (l.lag ?? 0), 0));
  });

  it('leases prints a table with the owner of each lease', async () => {
    const result = await runCli(['leases'], instance.cliEnv);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^LEASE +OWNER +CONTINUATION +LAG +EXPIRED +LAST WRITE$/);
    const rows = lines.slice(1, 5);
    for (const row of rows) expect(row).toContain(` ${instance.app.instanceName} `);
    expect(lines[5]).toMatch(/^total lag \d+$/);
  });

  it('leases of an unknown processor name says none exist and names the prefixes found', async () => {
    const result = await runCli(['leases', '--changefeed-name', 'other'], instance.cliEnv);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^no leases for processor "other" \(prefix other127\.0\.0\.1_.*\): no instance has started on this container yet; leases of other processors\/containers: opstream127\.0\.0\.1_/,
    );
  });

  it('lag --json gives the total and per-lease lag for scripts', async () => {
    const result = await runCli(['lag', '--json'], instance.cliEnv);
    expect(result.code).toBe(0);
    const lag = JSON.parse(result.stdout) as { total: number; unknown: number; leases: Array<{ leaseToken: string; lag: number }> };
    expect(lag.unknown).toBe(0);
    expect(lag.leases).toHaveLength(4);
    expect(lag.total).toBe(lag.leases.reduce((s, l) => s + l.lag, 0));
  });

  it('lag --fail-above exits 1 once the lag is above the limit', async () => {
    // Stop reading so that new writes stay unprocessed: the lag is then at least their number.
    await instance.app.pipeline.stop();
    const sub = crypto.randomUUID();
    await instance.frontend.registerSubscription(sub, crypto.randomUUID());
    for (let i = 0; i < 3; i++) await instance.frontend.createCluster(sub, 'rg', uniqueName('lagging'));
    const result = await runCli(['lag', '--fail-above', '2'], instance.cliEnv);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^total (\d+)\n/);
    expect(Number(/^total (\d+)/.exec(result.stdout)?.[1])).toBeGreaterThanOrEqual(3);
    expect(result.stderr).toMatch(/^opstream: lag \d+ is above 2\n$/);
    const leases = JSON.parse((await runCli(['leases', '--json'], instance.cliEnv)).stdout) as LeaseJson;
    for (const lease of leases.leases) expect(lease.owner).toBeNull(); // released on stop
  });

  it('exits 78 naming the setting when the Cosmos endpoint is missing, 78 for a refused key, 69 when Cosmos is unreachable', async () => {
    const missing = await runCli(['leases'], { OPSTREAM_COSMOS_KEY: instance.cosmos.emu.key });
    expect(missing.code).toBe(78);
    expect(missing.stderr).toBe('opstream: setting cosmos.endpoint is required: set OPSTREAM_COSMOS_ENDPOINT or pass --cosmos-endpoint\n');

    const badKey = await runCli(['leases'], { ...instance.cliEnv, OPSTREAM_COSMOS_KEY: Buffer.from('not the key').toString('base64') });
    expect(badKey.code).toBe(78);
    expect(badKey.stderr).toMatch(/^opstream: Cosmos DB at .* refused the key \(HTTP 401\): check cosmos.key/);

    const down = await runCli(['lag'], { ...instance.cliEnv, OPSTREAM_COSMOS_ENDPOINT: 'http://127.0.0.1:9/' });
    expect(down.code).toBe(69);
    expect(down.stderr).toMatch(/^opstream: cannot reach Cosmos DB at http:\/\/127\.0\.0\.1:9\/: .*ECONNREFUSED/);
  });
});

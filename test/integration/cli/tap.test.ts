import { createServer } from 'net';
import { createMetrics } from '../../../src/ops/metrics';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server';
import { TapRegistry } from '../../../src/ops/taps';
import { runCli, spawnCli } from '../../helpers/cli';
import { startRunningInstance, type RunningInstance } from '../../helpers/running-instance';
import { uniqueName, waitFor } from '../../helpers/wait-for';

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('opstream tap against a running instance', () => {
  let instance: RunningInstance;
  beforeAll(async () => {
    instance = await startRunningInstance();
  });
  afterAll(() => instance?.close());

  it('follows every stream of a frontend write as JSON lines, filtered by subscription, and exits 0 on Ctrl-C', async () => {
    const sub = crypto.randomUUID();
    const other = crypto.randomUUID();
    await instance.frontend.registerSubscription(sub, crypto.randomUUID());
    await instance.frontend.registerSubscription(other, crypto.randomUUID());
    const tap = spawnCli(['tap', '*', '--json', '--subscription', sub], instance.cliEnv);
    await tap.waitForStderr((l) => l.startsWith('tap: following * at '), 20_000, 'that it is connected');

    const noise = await instance.frontend.createCluster(other, 'rg', uniqueName('noise'));
    const op = await instance.frontend.createCluster(sub, 'rg', uniqueName('c'));
    expect(await instance.terminal(op)).toBe('Succeeded');
    expect(await instance.terminal(noise)).toBe('Succeeded');
    await tap.waitForLine((l) => l.includes(op.operationId) && l.includes('"stream":"notifications"'), 20_000, 'the notification event');

    tap.child.kill('SIGINT');
    const result = await tap.exited;
    expect(result).toMatchObject({ code: 0, signal: null });
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stream: string; data: { operationId?: string; subscriptionId?: string; status?: string } });
    const streams = new Set(events.filter((e) => e.data.operationId === op.operationId).map((e) => e.stream));
    // Every stream about an operation carries its subscription, so the filter keeps them all.
    expect([...streams].sort()).toEqual(['active', 'changes', 'decisions', 'notifications', 'operations', 'transitions']);
    expect(events.filter((e) => e.stream === 'transitions' && e.data.operationId === op.operationId).map((e) => e.data.status)).toContain(
      'Succeeded',
    );
    expect(result.stdout).not.toContain(noise.operationId);
  });

  it('prints one readable line per event and stops after --limit', async () => {
    const sub = crypto.randomUUID();
    await instance.frontend.registerSubscription(sub, crypto.randomUUID());
    const tap = spawnCli(['tap', 'transitions', '--status', 'Succeeded', '--limit', '1'], instance.cliEnv);
    await tap.waitForStderr((l) => l.includes('following transitions') && l.includes('status=Succeeded'), 20_000, 'that it is connected');
    const name = uniqueName('readable');
    const op = await instance.frontend.createCluster(sub, 'rg', name);
    const result = await tap.exited;
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} +transitions +\\w+ → Succeeded +Create +hcpOpenShiftClusters/${name} +op ${op.operationId} +correlationRequestId=[0-9a-f-]+ +clientRequestId=[0-9a-f-]+$`,
      ),
    );
    expect(lines[0]).not.toContain('\x1b['); // no colours when stdout is not a terminal
  });

  it('names the known streams for an unknown one (exit 2)', async () => {
    const result = await runCli(['tap', 'nope'], instance.cliEnv);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'opstream: unknown stream "nope"; known streams: changes, operations, active, decisions, transitions, notifications, dead-letters, leases, or * for all',
    );
  });

  it('says the server is unreachable (exit 69)', async () => {
    const port = await closedPort();
    const result = await runCli(['tap', 'transitions', '--url', `http://127.0.0.1:${port}`]);
    expect(result.code).toBe(69);
    expect(result.stderr).toMatch(
      new RegExp(`^opstream: cannot reach the ops server at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\); is opstream running\\?`),
    );
  });

  it('exits 69 and passes on why when the server has all the stream clients it takes', async () => {
    const taps = new TapRegistry(['transitions']);
    const server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      taps,
      maxStreamClients: 1,
      metrics: createMetrics({ defaultMetrics: false }),
      readiness: async () => ({ ready: true, checks: {} }),
    });
    const first = spawnCli(['tap', 'transitions', '--url', server.url]);
    try {
      await waitFor(() => taps.isTapped('transitions'));
      const second = await runCli(['tap', 'transitions', '--url', server.url]);
      expect(second.code).toBe(69);
      expect(second.stderr).toMatch(/answered 503 for \/streams\/transitions: .*ops\.maxStreamClients/);
    } finally {
      first.child.kill('SIGINT');
      await first.exited;
      await server.close();
    }
  });

  it('exits 69 when the instance stops under it', async () => {
    const taps = new TapRegistry(['transitions']);
    const server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      taps,
      metrics: createMetrics({ defaultMetrics: false }),
      readiness: async () => ({ ready: true, checks: {} }),
    });
    const tap = spawnCli(['tap', 'transitions', '--url', server.url]);
    await waitFor(() => taps.isTapped('transitions'));
    await server.close();
    const result = await tap.exited;
    expect(result.code).toBe(69);
    expect(result.stderr).toContain('ended the stream');
  });
});

describe('opstream tap against a token-protected ops server', () => {
  const token = 'tap-test-token-0123456789';
  let server: OpsServer;
  const taps = new TapRegistry(['transitions']);
  beforeAll(async () => {
    server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      taps,
      token,
      metrics: createMetrics({ defaultMetrics: false }),
      readiness: async () => ({ ready: true, checks: {} }),
    });
  });
  afterAll(() => server.close());

  it('exits 77 when the token is refused', async () => {
    const result = await runCli(['tap', 'transitions', '--url', server.url, '--token', 'wrong-token-wrong-token']);
    expect(result.code).toBe(77);
    expect(result.stderr).toContain('refused the token');
  });

  it('takes the token and the address from OPSTREAM_OPS_TOKEN and OPSTREAM_OPS_ADDR', async () => {
    const tap = spawnCli(['tap', 'transitions', '--json', '--limit', '1'], {
      OPSTREAM_OPS_TOKEN: token,
      OPSTREAM_OPS_ADDR: new URL(server.url).host,
    });
    await waitFor(() => taps.isTapped('transitions'), { describe: () => `the tap to connect; stderr: ${tap.stderr()}` });
    taps.publish('transitions', { operationId: 'op-1', status: 'Succeeded' });
    const result = await tap.exited;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ stream: 'transitions', data: { operationId: 'op-1', status: 'Succeeded' } });
  });
});

import { request } from 'http';
import { connect } from 'net';
import { createMetrics, type OpstreamMetrics } from '../../../src/ops/metrics';
import { startOpsServer, type OpsServer, type OpsServerOptions } from '../../../src/ops/ops-server';
import { TapRegistry } from '../../../src/ops/taps';
import { waitFor } from '../../helpers/wait-for';

/**
 * The ops server under a client that means harm: many stream clients, a page in a browser on this
 * machine reaching a loopback port through DNS rebinding (its requests carry a foreign Host), and a
 * token that would leak through URLs.
 */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One GET with the Host header chosen by the test (fetch does not let a caller set Host). */
function get(url: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port: Number(port), path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** An open `/streams/<name>` client; `close()` hangs up. */
async function openStream(
  url: string,
  stream: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(`${url}/streams/${stream}`, { headers, signal: controller.signal });
  if (res.status !== 200) return { status: res.status, body: await res.text(), close: () => undefined };
  res.body?.pipeTo(new WritableStream()).catch(() => undefined);
  return { status: 200, body: '', close: () => controller.abort() };
}

async function refused(metrics: OpstreamMetrics, reason: string): Promise<number> {
  const values = (await metrics.opsRefused.get()).values;
  return values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

function server(overrides: Partial<OpsServerOptions>): Promise<OpsServer> & { metrics: OpstreamMetrics; taps: TapRegistry } {
  const metrics = createMetrics({ defaultMetrics: false });
  const taps = new TapRegistry(['transitions', 'operations']);
  const started = startOpsServer({
    host: '127.0.0.1',
    port: 0,
    taps,
    metrics,
    readiness: async () => ({ ready: true, checks: {} }),
    summary: async () => ({ hello: 'world' }),
    page: () => '<html>live</html>',
    ...overrides,
  });
  return Object.assign(started, { metrics, taps });
}

describe('ops server: stream clients are capped', () => {
  const started = server({ maxStreamClients: 3 });
  let ops: OpsServer;
  beforeAll(async () => {
    ops = await started;
  });
  afterAll(() => ops.close());

  it('answers 503 past ops.maxStreamClients, counts the refusal, and takes a client again once one leaves', async () => {
    const open = await Promise.all([openStream(ops.url, 'transitions'), openStream(ops.url, 'operations'), openStream(ops.url, '*')]);
    expect(open.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(await refused(started.metrics, 'stream-limit')).toBe(0);

    const fourth = await openStream(ops.url, 'transitions');
    expect(fourth.status).toBe(503);
    expect(JSON.parse(fourth.body)).toEqual({ error: expect.stringContaining('ops.maxStreamClients (OPSTREAM_OPS_MAX_STREAM_CLIENTS)') });
    expect(await refused(started.metrics, 'stream-limit')).toBe(1);
    expect((await started.metrics.tapClients.get()).values[0]?.value).toBe(3);
    // Nor does a refused client keep an idle connection: the server closes it.
    const fifth = await get(ops.url, '/streams/operations');
    expect(fifth.status).toBe(503);
    expect(fifth.headers).toMatchObject({ connection: 'close', 'retry-after': '5' });
    expect(await refused(started.metrics, 'stream-limit')).toBe(2);
    // Requests other than streams are still answered.
    expect((await get(ops.url, '/api/summary')).status).toBe(200);

    open[0].close();
    const again = await waitFor(
      async () => {
        const s = await openStream(ops.url, 'transitions');
        return s.status === 200 ? s : undefined;
      },
      { describe: () => 'a stream client to be taken again once one left' },
    );
    expect(await refused(started.metrics, 'stream-limit')).toBeGreaterThanOrEqual(1);
    for (const s of [again, ...open]) s.close();
    await waitFor(async () => (await started.metrics.tapClients.get()).values[0]?.value === 0, {
      describe: () => 'the open stream count to return to 0',
    });
  });

  it('defaults to 64 stream clients', async () => {
    const defaults = server({});
    const ops64 = await defaults;
    try {
      const open = await Promise.all(Array.from({ length: 64 }, () => openStream(ops64.url, 'transitions')));
      expect(open.every((s) => s.status === 200)).toBe(true);
      expect((await openStream(ops64.url, 'operations')).status).toBe(503);
      for (const s of open) s.close();
    } finally {
      await ops64.close();
    }
  });
});

describe('ops server without a token: answers only its own names (DNS rebinding)', () => {
  const started = server({});
  let ops: OpsServer;
  beforeAll(async () => {
    ops = await started;
  });
  afterAll(() => ops.close());

  it('refuses a foreign Host with 421 and a body that says why, on every path', async () => {
    for (const path of ['/', '/api/summary', '/metrics', '/readyz', '/healthz', '/streams/transitions']) {
      const answer = await get(ops.url, path, { host: 'rebound.attacker.example:9464' });
      expect([path, answer.status]).toEqual([path, 421]);
      expect(JSON.parse(answer.body).error).toMatch(/^Host "rebound\.attacker\.example:9464" is not a name of this ops server/);
      expect(JSON.parse(answer.body).error).toContain('OPSTREAM_OPS_TOKEN');
    }
    expect(await refused(started.metrics, 'host')).toBe(6);
    expect(started.taps.isTapped('transitions')).toBe(false);
  });

  it('refuses Host values that only look local', async () => {
    for (const host of [
      'localhost.attacker.example',
      '127.0.0.1.attacker.example',
      'attacker.example@127.0.0.1',
      '127.0.0.1/x',
      '127.0.0.1:1:2',
    ]) {
      expect([host, (await get(ops.url, '/api/summary', { host })).status]).toEqual([host, 421]);
    }
  });

  it('refuses a request without Host (HTTP/1.0; Node itself answers 400 to HTTP/1.1 without one)', async () => {
    const { port } = new URL(ops.url);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (answer += c));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.end('GET /api/summary HTTP/1.0\r\n\r\n');
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 421 /);
  });

  it('answers loopback names and its own address', async () => {
    const { port } = new URL(ops.url);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `[::1]:${port}`, '127.0.0.2', `127.1:${port}`]) {
      expect([host, (await get(ops.url, '/api/summary', { host })).status]).toEqual([host, 200]);
    }
  });
});

describe('ops server with a token: the token guards, in the Authorization header only', () => {
  const token = 'hostile-client-test-token';
  const started = server({ token });
  let ops: OpsServer;
  beforeAll(async () => {
    ops = await started;
  });
  afterAll(() => ops.close());

  it('answers any Host that brings the token', async () => {
    const answer = await get(ops.url, '/api/summary', { host: 'opstream.example:9464', authorization: `Bearer ${token}` });
    expect(answer.status).toBe(200);
    expect((await get(ops.url, '/api/summary', { host: 'opstream.example:9464' })).status).toBe(401);
  });

  it('refuses ?token= (URLs end up in histories and logs), even with the right token, and says where it goes', async () => {
    for (const path of [`/api/summary?token=${token}`, `/streams/transitions?token=${token}`, `/metrics?token=${token}`]) {
      const answer = await get(ops.url, path);
      expect([path, answer.status]).toEqual([path, 400]);
      expect(JSON.parse(answer.body).error).toContain('Authorization: Bearer');
    }
    expect(started.taps.isTapped('transitions')).toBe(false);
  });

  it('serves the live page itself without the token (it holds no data, and asks for the token), never inside a frame', async () => {
    const answer = await get(ops.url, '/');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('<html>live</html>');
    expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect((await get(ops.url, '/api/summary')).status).toBe(401);
  });
});

describe('the probes listener (ops.metricsAddr) never asks for a token, so it checks Host', () => {
  const started = server({ only: 'probes' });
  let probes: OpsServer;
  beforeAll(async () => {
    probes = await started;
  });
  afterAll(() => probes.close());

  it('answers its address and refuses a foreign Host', async () => {
    const { port } = new URL(probes.url);
    expect((await get(probes.url, '/metrics', { host: `127.0.0.1:${port}` })).status).toBe(200);
    expect((await get(probes.url, '/metrics', { host: `metrics.attacker.example:${port}` })).status).toBe(421);
  });
});

import { connect } from 'net';
import { createMetrics } from '../../../src/ops/metrics';
import { OpsServer, startOpsServer } from '../../../src/ops/ops-server';
import { TapRegistry } from '../../../src/ops/taps';
import { PassThrough } from 'stream';
import { createLogger } from '../../../src/logging/logger';
import { waitFor } from '../../helpers/wait-for';

describe('ops server', () => {
  let server: OpsServer;
  let taps: TapRegistry;
  let ready = true;
  const metrics = createMetrics({ defaultMetrics: false });
  const token = 'a-long-enough-test-token';
  const logged: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => logged.push(chunk.toString()));

  beforeAll(async () => {
    taps = new TapRegistry(['operations', 'transitions']);
    server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      taps,
      metrics,
      token,
      readiness: async () => ({ ready, checks: { cosmos: { ok: ready, detail: ready ? 'reachable' : 'ECONNREFUSED' } } }),
      summary: async () => ({ hello: 'world' }),
      operation: (operationId) =>
        operationId === 'bad'
          ? ({ instance: 'i-1', operationId } as never)
          : { instance: 'i-1', at: new Date().toISOString(), operationId, state: 'absent' },
      page: () => '<html>live</html>',
      sse: { maxBufferedBytes: 16 * 1024, maxDropped: 50, heartbeatMs: 60_000 },
      logger: createLogger({ stream: logStream, format: 'json' }),
    });
  });
  afterAll(() => server.close());

  it('a malformed percent-escape in the path is a 400, and no error message is ever answered', async () => {
    const res = await get('/api/operations/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'malformed percent-encoding in the URL path' });
    expect((await get('/streams/%ZZ')).status).toBe(400);
  });

  it('takes the Bearer scheme in any case (RFC 9110), the token exactly', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR'])
      expect((await fetch(`${server.url}/api/summary`, { headers: { authorization: `${scheme} ${token}` } })).status).toBe(200);
    expect((await fetch(`${server.url}/api/summary`, { headers: { authorization: `Bearer ${token.toUpperCase()}` } })).status).toBe(401);
    expect((await fetch(`${server.url}/api/summary`, { headers: { authorization: `Basic ${token}` } })).status).toBe(401);
  });

  const get = (path: string, auth = true) => fetch(server.url + path, { headers: auth ? { authorization: `Bearer ${token}` } : {} });

  it('answers /healthz without a token and refuses everything else without one', async () => {
    expect((await get('/healthz', false)).status).toBe(200);
    expect((await get('/metrics', false)).status).toBe(401);
    expect((await get('/readyz', false)).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-wrong-token' } })).status).toBe(401);
  });

  it('/api/operations/<id> answers behind the token, what the instance does with it, validated before it is sent', async () => {
    expect((await get('/api/operations/op%201', false)).status).toBe(401);
    const res = await get('/api/operations/op%201');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ instance: 'i-1', at: expect.any(String), operationId: 'op 1', state: 'absent' });
    // An answer that breaks its schema is never sent as if it were one; what broke is logged, not answered.
    const bad = await get('/api/operations/bad');
    expect(bad.status).toBe(500);
    expect(await bad.json()).toEqual({ error: 'internal error (the instance logged it)' });
    expect(logged.join('\n')).toMatch(/invalid operationState.*ops server request failed/);
  });

  it('/readyz says which check fails', async () => {
    expect((await get('/readyz')).status).toBe(200);
    ready = false;
    const res = await get('/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ ready: false, checks: { cosmos: { ok: false, detail: 'ECONNREFUSED' } } });
    ready = true;
  });

  it('/metrics serves the Prometheus text format', async () => {
    metrics.operations.inc({ processor: 'cluster-create', outcome: 'done' });
    const text = await (await get('/metrics')).text();
    expect(text).toContain('opstream_operations_handled_total{processor="cluster-create",outcome="done"} 1');
  });

  it('/streams/<name> sends the tapped events that match the filters', async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/streams/operations?subscription=SUB-B`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += Buffer.from(value).toString('utf8');
      }
    })().catch(() => undefined);
    await waitFor(() => text.includes(': connected'));
    taps.publish('operations', { operationId: 'op-a', subscriptionId: 'sub-a', status: 'Accepted' });
    taps.publish('operations', { operationId: 'op-b', subscriptionId: 'sub-b', status: 'Accepted' });
    await waitFor(() => text.includes('op-b'));
    expect(text).not.toContain('op-a');
    expect(text).toMatch(/event: operations\ndata: \{.*"operationId":"op-b"/);
    controller.abort();
    await reading;
  });

  it('names the known streams for an unknown one', async () => {
    const res = await get('/streams/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ streams: ['operations', 'transitions'] });
  });

  it('a client that never reads has its events dropped, then is disconnected', async () => {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.pause(); // never read: the kernel buffers fill, then the server's
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`GET /streams/transitions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    await waitFor(() => taps.isTapped('transitions'));
    const payload = { operationId: 'x'.repeat(2000), status: 'Succeeded' };
    await waitFor(
      () => {
        for (let i = 0; i < 200; i++) taps.publish('transitions', payload);
        return !taps.isTapped('transitions');
      },
      { timeoutMs: 30_000, describe: () => 'the server to drop a client that never reads' },
    );
    const dropped = await metrics.registry.getSingleMetricAsString('opstream_tap_events_dropped_total');
    expect(dropped).toMatch(/stream="transitions"} \d+/);
    socket.destroy();
  });
});

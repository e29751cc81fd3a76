import { connect, type Socket } from 'net';
import { startRunningInstance, type RunningInstance } from '../../helpers/running-instance';
import { uniqueName, waitFor } from '../../helpers/wait-for';

/**
 * A tap client that never reads must not hold the pipeline up: the server drops its events once
 * its buffer is full, then disconnects it, while operations complete and a client that reads keeps
 * receiving. (Whether reaction latency moves is measured in bench/slow-tap.ts, not asserted here.)
 *
 * The kernel absorbs megabytes for a socket that is not read before the server's own buffer grows,
 * more than a handful of operations produce; so besides real operations the test publishes large
 * synthetic events on the `changes` stream, which only tap clients consume.
 */
describe('a tap client that never reads', () => {
  let instance: RunningInstance;
  beforeAll(async () => {
    instance = await startRunningInstance({ opsSse: { maxBufferedBytes: 64 * 1024, maxDropped: 100, heartbeatMs: 60_000 } });
  });
  afterAll(() => instance?.close());

  function slowClient(path: string): Socket {
    const { port } = new URL(instance.opsUrl);
    const socket = connect(Number(port), '127.0.0.1');
    socket.pause(); // never read
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    return socket;
  }

  it('is dropped while operations complete and a reading client keeps receiving', async () => {
    const slow = slowClient('/streams/*');
    await waitFor(() => instance.app.taps.isTapped('changes'), { describe: () => 'the slow client to be subscribed' });

    const reading = new AbortController();
    const res = await fetch(`${instance.opsUrl}/streams/transitions`, { signal: reading.signal });
    let received = '';
    const readLoop = (async () => {
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        received += Buffer.from(value).toString('utf8');
      }
    })().catch(() => undefined);

    const sub = crypto.randomUUID();
    await instance.frontend.registerSubscription(sub, crypto.randomUUID());
    const ops = await Promise.all(Array.from({ length: 5 }, () => instance.frontend.createCluster(sub, 'rg', uniqueName('slow'))));
    const filler = { leaseToken: 'filler', operationId: 'x'.repeat(4096), status: 'Accepted' };
    await waitFor(
      () => {
        for (let i = 0; i < 200; i++) instance.app.taps.publish('changes', filler);
        return !instance.app.taps.isTapped('changes');
      },
      { timeoutMs: 30_000, describe: () => 'the server to disconnect the client that never reads' },
    );

    const statuses = await Promise.all(ops.map((op) => instance.terminal(op, 30_000)));
    expect(statuses).toEqual(['Succeeded', 'Succeeded', 'Succeeded', 'Succeeded', 'Succeeded']);
    const dropped = await instance.app.metrics.registry.getSingleMetricAsString('opstream_tap_events_dropped_total');
    expect(Number(/stream="\*"} (\d+)/.exec(dropped)?.[1])).toBeGreaterThanOrEqual(100);
    for (const op of ops) {
      await waitFor(() => new RegExp(`"operationId":"${op.operationId}"[^\\n]*"status":"Succeeded"`).test(received), {
        describe: () => `the reading client to get ${op.operationId} Succeeded`,
      });
    }
    expect(instance.app.taps.isTapped('transitions')).toBe(true); // the reading client (and the live page summary) still there
    reading.abort();
    await readLoop;
    slow.destroy();
  });
});

import { connect, type Socket } from 'net';
import { PassThrough } from 'stream';
import { createLogger } from '../../../src/logging/logger';
import { createMetrics } from '../../../src/ops/metrics';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server';
import { TapRegistry } from '../../../src/ops/taps';
import { waitFor } from '../../helpers/wait-for';

/**
 * What a stream client that does not read costs (issue 39): an event was written whenever the socket held
 * less than the limit, whatever its size, so ten clients that never read grew an instance by tens of MB
 * with 250 KB events. Now an event is written only when it fits within the limit with what the socket
 * holds; otherwise it is dropped, counted, and the client is told with an `event: gap` before the next
 * one that fits (and the gap is logged). bench/slow-tap-memory.ts measures the memory.
 */
describe('a stream client is bounded in bytes, whatever the event size', () => {
  const LIMIT = 64 * 1024;
  let server: OpsServer;
  let taps: TapRegistry;
  const metrics = createMetrics({ defaultMetrics: false });
  const logged: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (c: Buffer) => logged.push(c.toString()));

  beforeAll(async () => {
    taps = new TapRegistry(['operations']);
    server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      taps,
      metrics,
      readiness: async () => ({ ready: true, checks: {} }),
      sse: { maxBufferedBytes: LIMIT, maxDropped: 10_000, heartbeatMs: 60_000 },
      logger: createLogger({ stream: logStream, format: 'json' }),
    });
  });
  afterAll(() => server.close());

  const dropped = async (): Promise<number> => (await metrics.tapDrops.get()).values.reduce((sum, v) => sum + v.value, 0);

  /** The body of a chunked HTTP answer, as far as whole chunks have come. */
  function body(raw: string): string {
    let rest = raw.slice(raw.indexOf('\r\n\r\n') + 4);
    let out = '';
    for (;;) {
      const line = rest.indexOf('\r\n');
      if (line < 0) return out;
      const size = parseInt(rest.slice(0, line), 16);
      if (!(size > 0) || rest.length < line + 2 + size + 2) return out;
      out += rest.slice(line + 2, line + 2 + size);
      rest = rest.slice(line + 2 + size + 2);
    }
  }

  async function client(): Promise<{ socket: Socket; text: () => string }> {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    let raw = '';
    socket.on('data', (c: Buffer) => (raw += c.toString('latin1')));
    socket.pause();
    socket.write(`GET /streams/operations HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const before = (await metrics.tapClients.get()).values[0]?.value ?? 0;
    await waitFor(async () => ((await metrics.tapClients.get()).values[0]?.value ?? 0) > before);
    return { socket, text: () => body(raw) };
  }

  it('an event larger than the limit is never buffered for a client: dropped and counted', async () => {
    const c = await client();
    const before = await dropped();
    for (let i = 0; i < 5; i++) taps.publish('operations', { n: i, pad: 'x'.repeat(1024 * 1024) });
    expect((await dropped()) - before).toBe(5);
    c.socket.destroy();
    await waitFor(async () => ((await metrics.tapClients.get()).values[0]?.value ?? 0) === 0);
  });

  it('a client that falls behind is told how many events it missed, before the next one', async () => {
    const c = await client();
    const before = await dropped();
    // Until the kernel's buffers for this socket are full and the server starts dropping.
    await waitFor(
      async () => {
        for (let i = 0; i < 50; i++) taps.publish('operations', { pad: 'y'.repeat(16 * 1024) });
        return (await dropped()) > before;
      },
      { timeoutMs: 30_000, describe: () => 'events dropped for the client that does not read' },
    );
    const missed = (await dropped()) - before;
    c.socket.resume();
    // Once it has read everything that was sent, the next event comes after the gap.
    await waitFor(() => c.text().includes('"pad":"yyyy'));
    await waitFor(
      () => {
        taps.publish('operations', { marker: 'after the gap' });
        return c.text().includes('after the gap');
      },
      { describe: () => 'the next event after the gap' },
    );
    const gap = /event: gap\ndata: \{"dropped":(\d+)\}\n\nevent: operations\ndata: [^\n]*after the gap/.exec(c.text());
    expect(Number(gap?.[1])).toBe(missed);
    expect(logged.join('')).toMatch(new RegExp(`"dropped":${missed}.*tap client missed events`));
    c.socket.destroy();
  });
});

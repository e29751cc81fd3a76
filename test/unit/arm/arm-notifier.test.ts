import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo, Socket } from 'net';
import { ArmNotifier, MAX_ANSWER_BYTES, type ArmNotifierOptions } from '../../../src/arm/arm-notifier';
import type { NotificationTargetPolicy } from '../../../src/arm/notification-target';
import type { Operation } from '../../../src/domain/types';
import { waitFor } from '../../helpers/wait-for';

/**
 * The notifier against ARM endpoints on loopback only (the address checks of other addresses are
 * units, in notification-target.test.ts).
 */
interface Endpoint {
  url: string;
  port: number;
  seen: IncomingMessage[];
  /** Connections opened, and those that have closed. */
  sockets: { opened: number; closed: number };
  close(): Promise<void>;
}

async function endpoint(answer: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<Endpoint> {
  const seen: IncomingMessage[] = [];
  const sockets = { opened: 0, closed: 0 };
  const server: Server = createServer((req, res) => {
    seen.push(req);
    answer(req, res);
  });
  server.on('connection', (socket: Socket) => {
    sockets.opened++;
    socket.on('close', () => sockets.closed++);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    seen,
    sockets,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers every request with `status` (and these headers) once its body has arrived. */
const answering =
  (status: number, headers: Record<string, string> = {}, body = '') =>
  (req: IncomingMessage, res: ServerResponse): void => {
    req.resume();
    req.on('end', () => res.writeHead(status, headers).end(body));
  };

const operation = (notificationUri: string): Operation =>
  ({
    id: 'op-1',
    operationId: '/subscriptions/s/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/op-1',
    partitionKey: 's',
    request: 'Create',
    externalId: '/subscriptions/s/resourcegroups/rg/providers/microsoft.redhatopenshift/hcpopenshiftclusters/c',
    status: 'Succeeded',
    startTime: '2026-12-01T00:00:00.000Z',
    lastTransitionTime: '2026-12-01T00:00:05.000Z',
    notificationUri,
  }) as unknown as Operation;

/** The development switch on, as the tests' and `opstream start`'s configuration has it. */
const DEV: NotificationTargetPolicy = { allowedHostSuffixes: ['management.azure.com'], allowLoopback: true };
const notifier = (options: ArmNotifierOptions = {}): ArmNotifier => new ArmNotifier({ policy: DEV, ...options });

const endpoints: Endpoint[] = [];
async function started(answer: Parameters<typeof endpoint>[0], host?: string): Promise<Endpoint> {
  const e = await endpoint(answer, host);
  endpoints.push(e);
  return e;
}
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
});

describe('ArmNotifier', () => {
  it('names the delivering instance in User-Agent', async () => {
    const arm = await started(answering(200));
    await expect(
      notifier({ userAgent: 'opstream/9.9.9 (replica-0#abcd1234)' }).deliver(operation(`${arm.url}/notify/op-1`)),
    ).resolves.toEqual({ kind: 'delivered', status: 200 });
    expect(arm.seen[0]?.headers['user-agent']).toBe('opstream/9.9.9 (replica-0#abcd1234)');
    expect(arm.seen[0]?.method).toBe('POST');
  });

  it("lets a request already sent finish when its signal aborts (aborting would leave ARM's receipt unknown)", async () => {
    const waiting: Array<() => void> = [];
    const arm = await started((req, res) => {
      req.resume();
      waiting.push(() => res.writeHead(200).end());
    });
    const fence = new AbortController();
    const delivery = notifier().deliver(operation(`${arm.url}/notify/op-1`), fence.signal);
    await waitFor(() => arm.seen.length === 1, { timeoutMs: 10_000, describe: () => 'the request to reach ARM' });
    fence.abort(new Error('lease lost'));
    waiting.splice(0).forEach((answer) => answer());
    await expect(delivery).resolves.toEqual({ kind: 'delivered', status: 200 });
    expect(arm.seen).toHaveLength(1);
  });

  it('sends nothing once its signal has aborted', async () => {
    const arm = await started(answering(200));
    const fence = new AbortController();
    fence.abort(new Error('lease lost'));
    await expect(notifier().deliver(operation(`${arm.url}/notify/op-1`), fence.signal)).rejects.toThrow('lease lost');
    expect(arm.seen).toHaveLength(0);
  });

  describe('answers', () => {
    it.each([400, 401, 403, 404, 409, 410])('%i is final: one POST, no retry', async (status) => {
      const arm = await started(answering(status, { 'content-type': 'application/json' }, '{"error":{"code":"NotFound"}}'));
      const attempt = await notifier().deliver(operation(`${arm.url}/notify/op-1`));
      expect(attempt).toEqual({
        kind: 'refused',
        reason: 'rejected',
        status,
        detail: expect.stringContaining(`answered HTTP ${status}: {"error":{"code":"NotFound"}}`),
      });
      expect(arm.seen).toHaveLength(1);
    });

    it.each([
      [408, 'throttled'],
      [429, 'throttled'],
      [500, 'server-error'],
      [503, 'server-error'],
    ])('%i is worth a retry later (one POST now), after Retry-After when given', async (status, reason) => {
      const arm = await started(answering(status, { 'retry-after': '3' }));
      await expect(notifier().deliver(operation(`${arm.url}/notify/op-1`))).resolves.toMatchObject({
        kind: 'retry',
        reason,
        status,
        retryAfterMs: 3000,
      });
      expect(arm.seen).toHaveLength(1);
    });

    it.each([301, 302, 307, 308])('a %i is not followed: the body goes nowhere else, and the notification is final', async (status) => {
      const elsewhere = await started(answering(200));
      const arm = await started((req, res) => {
        req.resume();
        res.writeHead(status, { location: `${elsewhere.url}/collect` }).end();
      });
      await expect(notifier().deliver(operation(`${arm.url}/notify/op-1`))).resolves.toMatchObject({
        kind: 'refused',
        reason: 'redirect',
        status,
      });
      expect(arm.seen).toHaveLength(1);
      expect(elsewhere.seen).toHaveLength(0);
      expect(elsewhere.sockets.opened).toBe(0);
    });

    it('a refused connection and an endpoint that never answers are worth a retry later', async () => {
      const silent = await started((req) => req.resume());
      const closed = await started(answering(200));
      await closed.close();
      await expect(notifier().deliver(operation(`${closed.url}/notify/op-1`))).resolves.toMatchObject({
        kind: 'retry',
        reason: 'connection',
      });
      await expect(notifier({ timeoutMs: 300 }).deliver(operation(`${silent.url}/notify/op-1`))).resolves.toMatchObject({
        kind: 'retry',
        reason: 'timeout',
      });
      await waitFor(() => silent.sockets.closed === silent.sockets.opened, {
        timeoutMs: 10_000,
        describe: () => 'the unanswered connection to be closed',
      });
    });
  });

  describe('where it connects', () => {
    /** Loopback, in the spellings a document could use to reach this machine. */
    const spellings = async (): Promise<Array<[string, Endpoint]>> => {
      const v4 = await started(answering(200), '127.0.0.1');
      const other = await started(answering(200), '127.9.9.9');
      const out: Array<[string, Endpoint]> = [
        [`http://localhost:${v4.port}/notify/op-1`, v4],
        [`http://127.9.9.9:${other.port}/notify/op-1`, other],
        [`http://2130706433:${v4.port}/notify/op-1`, v4],
        [`http://0x7f.1:${v4.port}/notify/op-1`, v4],
        // On 443 (another port is refused before any lookup): the name is allowed, its addresses are not.
        ['https://localhost/notify/op-1', v4],
      ];
      const v6 = await endpoint(answering(200), '::1').catch(() => undefined); // no IPv6 loopback on this machine
      if (v6) {
        endpoints.push(v6);
        out.push([`http://[::1]:${v6.port}/notify/op-1`, v6]);
      }
      return out;
    };

    it('refuses loopback in every spelling without the development switch, even a name on the allow-list: nothing is sent', async () => {
      const strict = new ArmNotifier({ policy: { allowedHostSuffixes: ['management.azure.com', 'localhost'], allowLoopback: false } });
      for (const [uri, arm] of await spellings()) {
        const attempt = await strict.deliver(operation(uri));
        expect({ uri, attempt }).toEqual({
          uri,
          attempt: { kind: 'refused', reason: expect.stringMatching(/^(address|scheme)$/), detail: expect.any(String) },
        });
        expect({ uri, connections: arm.sockets.opened }).toEqual({ uri, connections: 0 });
      }
    });

    it('refuses by default (ARM hosts only): a loopback notificationUri is a host not allowed', async () => {
      const arm = await started(answering(200));
      await expect(new ArmNotifier().deliver(operation(`${arm.url}/notify/op-1`))).resolves.toMatchObject({
        kind: 'refused',
        reason: 'address',
      });
      await expect(new ArmNotifier().deliver(operation(`http://localhost:${arm.port}/notify/op-1`))).resolves.toMatchObject({
        kind: 'refused',
        reason: 'host',
      });
      expect(arm.sockets.opened).toBe(0);
    });

    it('with the development switch, delivers to loopback in those spellings (over http)', async () => {
      for (const [uri, arm] of await spellings()) {
        if (uri.startsWith('https:')) continue; // the stand-ins speak http, on other ports
        const before = arm.seen.length;
        await expect(notifier().deliver(operation(uri))).resolves.toEqual({ kind: 'delivered', status: 200 });
        expect({ uri, received: arm.seen.length - before }).toEqual({ uri, received: 1 });
      }
    });

    it('connects to the address it checked, not to a second lookup of the name', async () => {
      const checked = await started(answering(200), '127.9.9.9');
      const lookups: string[] = [];
      const pinned = notifier({
        resolver: async (host) => {
          lookups.push(host);
          return [{ address: '127.9.9.9', family: 4 }];
        },
      });
      // `arm.localhost` is a loopback name whatever the system resolver makes of it: only the injected one is asked.
      await expect(pinned.deliver(operation(`http://arm.localhost:${checked.port}/notify/op-1`))).resolves.toEqual({
        kind: 'delivered',
        status: 200,
      });
      expect(lookups).toEqual(['arm.localhost']);
      expect(checked.seen[0]?.headers.host).toBe(`arm.localhost:${checked.port}`);
    });

    it('refuses a loopback name that resolves to a private address, with the development switch too, and connects nowhere', async () => {
      const lookups: string[] = [];
      const attempt = await notifier({
        resolver: async (host) => {
          lookups.push(host);
          return [{ address: '10.0.0.5', family: 4 }];
        },
      }).deliver(operation('http://arm.localhost:9/notify/op-1'));
      expect(attempt).toEqual({ kind: 'refused', reason: 'address', detail: 'arm.localhost resolves to 10.0.0.5, a private address' });
      expect(lookups).toEqual(['arm.localhost']);
    });
  });

  it(`reads at most ${MAX_ANSWER_BYTES} bytes of an answer that streams forever, then closes: three at once leave RSS within 20 MiB of idle`, async () => {
    const LIMIT = 20 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let streamed = 0;
    const arm = await started((req, res) => {
      req.resume();
      res.writeHead(/\/fail\//.test(req.url ?? '') ? 503 : 200, { 'content-type': 'application/octet-stream' });
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk)) streamed += chunk.length;
      };
      res.on('drain', pump);
      pump();
    });
    // Idle: the notifier's code paths loaded once, then the heap settled.
    await notifier().deliver(operation(`${(await started(answering(200))).url}/notify/warm-up`));
    const idle = process.memoryUsage().rss;
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
      // A notifier that reads without a bound would take the machine's memory: stop the stream at the limit.
      if (peak - idle > LIMIT) arm.close().catch(() => undefined);
    }, 10);
    try {
      const n = notifier();
      const attempts = await Promise.all([
        n.deliver(operation(`${arm.url}/notify/a`)),
        n.deliver(operation(`${arm.url}/notify/b`)),
        n.deliver(operation(`${arm.url}/fail/c`)),
      ]);
      expect(attempts.map((a) => a.kind)).toEqual(['delivered', 'delivered', 'retry']);
      await waitFor(() => arm.sockets.opened === 3 && arm.sockets.closed === 3, {
        timeoutMs: 15_000,
        describe: () =>
          `the three answers' connections to be closed by the notifier (${arm.sockets.closed}/${arm.sockets.opened} closed, ${streamed} bytes streamed, RSS +${peak - idle})`,
      });
      peak = Math.max(peak, process.memoryUsage().rss);
    } finally {
      clearInterval(sampler);
    }
    expect(peak - idle).toBeLessThan(LIMIT);
  });
});

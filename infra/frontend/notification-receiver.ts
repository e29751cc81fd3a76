import { createServer, IncomingMessage, Server } from 'http';
import { answerLoopbackHostsOnly } from '@opstream/stand-in-kit/host-guard';
import { AddressInfo } from 'net';

/**
 * Stands in for ARM's async-notification endpoint: records every POST to `/notify/<operation>`,
 * and can be told to fail a share of them (to exercise the backend's retries).
 */
export interface ReceivedNotification {
  path: string;
  operation: string;
  body: unknown;
  at: number;
  /** The deliverer's `User-Agent` (opstream names its instance there), when it sent one. */
  userAgent?: string;
}

export interface NotificationReceiver {
  url: string;
  received: ReceivedNotification[];
  /** Notifications per operation id. */
  countFor(operationDocId: string): number;
  /** Resolves with the first notification of that operation (already received or to come). */
  waitForNotification(operationDocId: string, timeoutMs?: number): Promise<ReceivedNotification>;
  /** Answer this share of POSTs (0..1) with 503. */
  setFailureRate(rate: number): void;
  /**
   * Answer the next `count` POSTs for this operation with `status` (503 unless said), then as
   * usual: a deliverer that retries gets through on attempt `count + 1`. Refused POSTs are not
   * recorded as received; `refusedFor` counts them.
   */
  failNext(operationDocId: string, count: number, status?: number): void;
  /** POSTs for this operation answered by `failNext` or the failure rate. */
  refusedFor(operationDocId: string): number;
  close(): Promise<void>;
}

export async function startNotificationReceiver(
  options: { port?: number; host?: string; allowedHosts?: readonly string[] } = {},
): Promise<NotificationReceiver> {
  const received: ReceivedNotification[] = [];
  const waiters = new Map<string, Array<(n: ReceivedNotification) => void>>();
  let failureRate = 0;
  const toFail = new Map<string, { left: number; status: number }>();
  const refused = new Map<string, number>();
  let closed = false;
  const waiting = new Set<{ reject: (err: Error) => void; timer: NodeJS.Timeout }>();
  const server: Server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const match = /^\/notify\/([^/?]+)/.exec(req.url ?? '');
      if (req.method !== 'POST' || !match) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'NotFound', message: 'POST /notify/<id>' } }));
        return;
      }
      const operation = decodeURIComponent(match[1]);
      const scripted = toFail.get(operation);
      if (scripted && scripted.left > 0) scripted.left -= 1;
      if (scripted || Math.random() < failureRate) {
        if (scripted?.left === 0) toFail.delete(operation);
        refused.set(operation, (refused.get(operation) ?? 0) + 1);
        const status = scripted?.status ?? 503;
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: status === 503 ? 'ServiceUnavailable' : 'Injected', message: 'injected' } }));
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'BadRequest', message: 'body is not JSON' } }));
        return;
      }
      const userAgent = req.headers['user-agent'];
      const notification: ReceivedNotification = {
        path: req.url ?? '',
        operation,
        body,
        at: Date.now(),
        ...(userAgent ? { userAgent } : {}),
      };
      received.push(notification);
      res.writeHead(200).end();
      waiters
        .get(notification.operation)
        ?.splice(0)
        .forEach((w) => w(notification));
    });
  });
  answerLoopbackHostsOnly(server, { allowedHosts: options.allowedHosts });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    countFor: (id) => received.filter((r) => r.operation === id).length,
    waitForNotification: (id, timeoutMs = 60_000) => {
      const seen = received.find((r) => r.operation === id);
      if (seen) return Promise.resolve(seen);
      if (closed) return Promise.reject(new Error(`notification receiver closed; no ARM notification for operation ${id}`));
      return new Promise((resolve, reject) => {
        const pending = {
          reject,
          timer: setTimeout(
            () => settle(() => reject(new Error(`no ARM notification for operation ${id} within ${timeoutMs} ms`))),
            timeoutMs,
          ),
        };
        const settle = (then: () => void): void => {
          clearTimeout(pending.timer);
          waiting.delete(pending);
          then();
        };
        waiting.add(pending);
        const list = waiters.get(id) ?? [];
        list.push((n) => settle(() => resolve(n)));
        waiters.set(id, list);
      });
    },
    setFailureRate: (rate) => {
      failureRate = rate;
    },
    failNext: (id, count, status = 503) => {
      if (count > 0) toFail.set(id, { left: count, status });
      else toFail.delete(id);
    },
    refusedFor: (id) => refused.get(id) ?? 0,
    close: () => {
      // Waiters would otherwise hold the process open until their timeouts (minutes for a demo).
      closed = true;
      for (const pending of [...waiting]) {
        clearTimeout(pending.timer);
        waiting.delete(pending);
        pending.reject(new Error('notification receiver closed'));
      }
      waiters.clear();
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}

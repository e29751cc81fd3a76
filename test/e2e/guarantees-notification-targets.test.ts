import { randomUUID } from 'crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo, Socket } from 'net';
import { Writable } from 'stream';
import type { Subscription } from 'rxjs';
import { FrontendSimulator } from '@opstream/frontend-simulator';
import { createLogger } from '../../src/logging/logger';
import type { Opstream } from '../../src/app/opstream-app';
import { readDocument } from '../helpers/guarantees';
import { startHarness, type Harness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/**
 * Guarantee: the document does not choose where opstream connects, and a notification ARM will not
 * take does not run forever. Every endpoint is on loopback; refused targets are loopback spellings
 * with the development switch off (other addresses are checked as units only).
 */
interface Endpoint {
  host: string;
  port: number;
  /** Arrival time of each request, by path. */
  requests: Array<{ path: string; at: number }>;
  connections: number;
  close(): Promise<void>;
}

async function endpoint(host: string, answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Endpoint> {
  const requests: Endpoint['requests'] = [];
  const e = { host, port: 0, requests, connections: 0 } as Endpoint;
  const server: Server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', at: Date.now() });
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.on('connection', (_socket: Socket) => e.connections++);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  e.port = (server.address() as AddressInfo).port;
  e.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return e;
}

interface TapNotification {
  operationId?: string;
  delivered?: boolean;
  givenUp?: boolean;
  reason?: string;
  detail?: string;
}

function tapNotifications(app: Opstream, into: TapNotification[]): Subscription {
  return app.taps.tap<TapNotification>('notifications').subscribe((e) => into.push(e.data));
}

async function givenUpCount(app: Opstream, reason: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('opstream_arm_notifications_total')?.get();
  return metric?.values.find((v) => v.labels.outcome === 'given-up' && v.labels.reason === reason)?.value ?? 0;
}

async function completedWithoutNotification(
  h: Harness,
  op: { operationId: string; partitionKey: string },
): Promise<Record<string, unknown>> {
  let doc: Record<string, unknown> | undefined;
  await waitFor(
    async () => {
      doc = await readDocument(h, 'Operations', op.operationId, op.partitionKey);
      return doc?.status === 'Succeeded' && doc.notificationGivenUp !== undefined;
    },
    {
      timeoutMs: 60_000,
      describe: () =>
        `operation ${op.operationId} to complete with its notification given up (${JSON.stringify(doc && { status: doc.status, notificationUri: doc.notificationUri, notificationGivenUp: doc.notificationGivenUp })})`,
    },
  );
  return doc as Record<string, unknown>;
}

describe('guarantees: a notificationUri that is not allowed is never POSTed to, and the operation completes', () => {
  let h: Harness;
  const endpoints: Endpoint[] = [];
  const logLines: Array<Record<string, unknown>> = [];
  const tapped: TapNotification[] = [];
  let tap: Subscription;
  const tenant = randomUUID();
  let v4: Endpoint;
  let other: Endpoint;
  let v6: Endpoint | undefined;

  beforeAll(async () => {
    v4 = await endpoint('127.0.0.1', (_req, res) => res.writeHead(200).end());
    other = await endpoint('127.9.9.9', (_req, res) => res.writeHead(200).end());
    v6 = await endpoint('::1', (_req, res) => res.writeHead(200).end()).catch(() => undefined); // no IPv6 loopback here
    endpoints.push(v4, other, ...(v6 ? [v6] : []));
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim() !== '') logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    h = await startHarness({
      // As in production (no development switch), with `localhost` allowed by name: only the address check stops it.
      settings: { 'notifications.allowLoopback': false, 'notifications.allowedHostSuffixes': 'management.azure.com,localhost' },
      logger: createLogger({ level: 'warn', format: 'json', stream }),
    });
    tap = tapNotifications(h.instances[0], tapped);
  });
  afterAll(async () => {
    tap?.unsubscribe();
    await h?.close();
    await Promise.all(endpoints.map((e) => e.close()));
  });

  it.each([
    ['localhost, an allowed name whose addresses are loopback', 'address', () => 'https://localhost', () => [v4]],
    ['localhost over http', 'scheme', () => `http://localhost:${v4.port}`, () => [v4]],
    ['127.9.9.9', 'address', () => `http://127.9.9.9:${other.port}`, () => [other]],
    ['2130706433 (127.0.0.1 as one number)', 'address', () => `http://2130706433:${v4.port}`, () => [v4]],
    ['[::1]', 'address', () => `http://[::1]:${v6?.port ?? 9}`, () => (v6 ? [v6] : [])],
  ])('%s: refused (%s), nothing sent, recorded on the Operation, counted, tapped and logged', async (_what, reason, base, listening) => {
    const before = await givenUpCount(h.instances[0], reason);
    const frontend = new FrontendSimulator({ database: h.database, notificationBaseUrl: base() });
    const sub = randomUUID();
    await frontend.registerSubscription(sub, tenant);
    const op = await frontend.createCluster(sub, 'rg-refused', `refused-${randomUUID().slice(0, 6)}`);

    const doc = await completedWithoutNotification(h, op);
    expect(doc.notificationUri).toBeUndefined();
    expect(doc.notificationClaim).toBeUndefined();
    expect(doc.notificationGivenUp).toEqual({ reason, detail: expect.any(String), at: expect.any(String) });
    expect(String((doc.notificationGivenUp as { detail: string }).detail)).not.toContain(op.operationId); // the origin only, never the path
    expect(doc.notificationDelivery).toBeUndefined(); // no attempt was made
    for (const e of listening()) expect(e.connections).toBe(0);

    expect(await givenUpCount(h.instances[0], reason)).toBe(before + 1);
    await waitFor(() => tapped.some((t) => t.operationId === op.operationId && t.givenUp === true && t.reason === reason), {
      timeoutMs: 10_000,
      describe: () => 'the refusal on the notifications tap',
    });
    const line = logLines.find(
      (l) =>
        l.operationId === op.operationId && l.level === 'warn' && String(l.message).startsWith(`ARM notification given up (${reason})`),
    );
    expect(line).toBeDefined();
  });
});

describe('guarantees: ARM answers are classified; retries honour Retry-After and end at notifications.deadlineMs', () => {
  const DEADLINE_MS = 5000;
  let h: Harness;
  let arm: Endpoint;
  const tenant = randomUUID();
  /** Answers by the first path segment: /404/…, /503/… (Retry-After: 1), /429-once/… (429 then 200). */
  const seen = new Map<string, number>();

  beforeAll(async () => {
    arm = await endpoint('127.0.0.1', (req, res) => {
      const [, kind = '', , op = ''] = (req.url ?? '').split('/');
      const n = (seen.get(op) ?? 0) + 1;
      seen.set(op, n);
      if (kind === '404')
        return res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"code":"NotFound","message":"no such operation"}}');
      if (kind === '503') return res.writeHead(503, { 'retry-after': '1' }).end();
      if (kind === '429-once' && n === 1) return res.writeHead(429, { 'retry-after': '1' }).end();
      res.writeHead(200).end();
    });
    h = await startHarness({ settings: { 'notifications.deadlineMs': DEADLINE_MS } });
  });
  afterAll(async () => {
    await h?.close();
    await arm?.close();
  });

  const created = async (kind: string): Promise<{ operationId: string; partitionKey: string }> => {
    const frontend = new FrontendSimulator({ database: h.database, notificationBaseUrl: `http://127.0.0.1:${arm.port}/${kind}` });
    const sub = randomUUID();
    await frontend.registerSubscription(sub, tenant);
    return frontend.createCluster(sub, 'rg-answers', `answers-${randomUUID().slice(0, 6)}`);
  };
  const postsTo = (op: { operationId: string }): number[] =>
    arm.requests.filter((r) => r.path.endsWith(`/notify/${op.operationId}`)).map((r) => r.at);

  it('a 404 is final: one POST, the notification recorded as rejected, the operation completed', async () => {
    const op = await created('404');
    const doc = await completedWithoutNotification(h, op);
    expect(doc.notificationGivenUp).toEqual({
      reason: 'rejected',
      detail: expect.stringContaining('answered HTTP 404: {"error":{"code":"NotFound"'),
      at: expect.any(String),
    });
    expect(doc.notificationUri).toBeUndefined();
    expect(postsTo(op)).toHaveLength(1);
    expect(doc.notificationDelivery).toEqual({
      state: 'failed',
      attempts: 1,
      at: expect.any(String),
      httpStatus: 404,
      answer: expect.stringContaining('answered HTTP 404'),
      by: expect.any(String),
    });
  });

  it('a 429 with Retry-After is tried again no sooner than asked, then delivered', async () => {
    const op = await created('429-once');
    await waitFor(
      async () =>
        (await readDocument(h, 'Operations', op.operationId, op.partitionKey))?.notificationUri === undefined && postsTo(op).length === 2,
      {
        timeoutMs: 60_000,
        describe: () => `the notification to be delivered on its second POST (${postsTo(op).length} so far)`,
      },
    );
    const [first, second] = postsTo(op);
    expect(second - first).toBeGreaterThanOrEqual(1000);
    const doc = await readDocument(h, 'Operations', op.operationId, op.partitionKey);
    expect(doc?.notificationGivenUp).toBeUndefined();
    expect(doc?.notificationDelivery).toMatchObject({ state: 'delivered', attempts: 2, httpStatus: 200 });
  });

  it(`503s are retried, never sooner than Retry-After, until notifications.deadlineMs (${DEADLINE_MS} ms) after the operation ended; then given up`, async () => {
    const op = await created('503');
    const doc = await completedWithoutNotification(h, op);
    const record = doc.notificationGivenUp as { reason: string; detail: string; at: string };
    expect(record.reason).toBe('deadline');
    expect(record.detail).toContain('answered HTTP 503');
    expect(Date.parse(record.at)).toBeGreaterThanOrEqual(Date.parse(String(doc.lastTransitionTime)) + DEADLINE_MS);
    const posts = postsTo(op);
    expect(posts.length).toBeGreaterThanOrEqual(2);
    // At most one attempt per second for DEADLINE_MS, the last one before the deadline.
    expect(posts.length).toBeLessThanOrEqual(DEADLINE_MS / 1000);
    for (let i = 1; i < posts.length; i++) expect(posts[i] - posts[i - 1]).toBeGreaterThanOrEqual(1000);
    expect(posts[posts.length - 1]).toBeLessThan(Date.parse(String(doc.lastTransitionTime)) + DEADLINE_MS);
    // Every attempt counted, the last answer kept.
    expect(doc.notificationDelivery).toMatchObject({ state: 'failed', attempts: posts.length, httpStatus: 503 });
  });
});

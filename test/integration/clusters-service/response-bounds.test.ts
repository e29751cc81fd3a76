import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ClustersServiceBadResponseError,
  ClustersServiceClient,
  ClustersServiceClientError,
  ClustersServiceServerError,
  ClustersServiceTimeoutError,
  ClustersServiceUnsendableRequestError,
  isOutcomeUnknown,
  SMALL_BODY_BYTES,
} from '../../../src/clusters-service';
import { waitFor } from '../../helpers/wait-for';
import { createBody, failureOf, newClusterId, newIdentity } from './helpers';

const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** One answer the loopback server gives: a status, and a body that never ends unless `body` is given. */
interface Script {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Endless, but one byte at a time every 20 ms (a slow answer rather than a large one). */
  drip?: boolean;
}

/** What the server saw of one request, and whether the client closed the connection. */
interface Seen {
  method: string;
  url: string;
  closed: boolean;
}

/**
 * A loopback HTTP server standing in for Clusters Service that answers with a body streamed without
 * end (as fast as the client takes it) until the client closes the connection.
 */
async function startEndlessServer(): Promise<{ url: string; seen: Seen[]; script(s: Script): void; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let next: Script = { status: 200 };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const entry: Seen = { method: String(req.method), url: String(req.url), closed: false };
    seen.push(entry);
    req.resume();
    res.on('close', () => (entry.closed = true));
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
    if (next.body !== undefined) return void res.end(next.body);
    if (next.drip) {
      const timer = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    const pump = (): void => {
      while (!res.destroyed) if (!res.write(CHUNK)) return void res.once('drain', pump);
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    script: (s) => (next = s),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The real fetch, counting the body bytes the client pulled from the connection. */
function countingFetch(counter: { pulled: number }): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (res.body === null) return res;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          counter.pulled += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

describe('Clusters Service client: what it reads of an answer is bounded', () => {
  let srv: Awaited<ReturnType<typeof startEndlessServer>>;
  const counter = { pulled: 0 };
  /** Long, so that only the body bound (not the per-attempt timeout) can end a call here. */
  const client = (maxResponseBytes?: number): ClustersServiceClient =>
    new ClustersServiceClient({
      baseUrl: srv.url,
      requestTimeoutMs: 120_000,
      retry: { retries: 0 },
      fetch: countingFetch(counter),
      maxResponseBytes,
    });
  const lastSeen = (): Seen => srv.seen[srv.seen.length - 1] as Seen;
  /** At most one chunk of the server's (64 KiB) read past the point where reading stops. */
  const SLACK = 64 * 1024;
  beforeEach(() => (counter.pulled = 0));

  beforeAll(async () => {
    srv = await startEndlessServer();
  });
  afterAll(() => srv.close());

  it('a 200 whose body never ends fails with an error naming the limit, and the connection is closed', async () => {
    srv.script({ status: 200 });
    const err = await failureOf(client().getCluster('abc'));
    expect(err).toBeInstanceOf(ClustersServiceBadResponseError);
    expect((err as Error).message).toContain('larger than 4 MiB');
    expect(err).toMatchObject({ status: 200, retriable: false });
    await waitFor(() => lastSeen().closed, { timeoutMs: 10_000, describe: () => 'the client to close the connection' });
    expect(counter.pulled).toBeGreaterThan(4 * MiB);
    expect(counter.pulled).toBeLessThanOrEqual(4 * MiB + SLACK);
  });

  it('the same on a create: Clusters Service acted, so its outcome is unknown (searched for, never posted again blindly)', async () => {
    srv.script({ status: 201 });
    const err = await failureOf(client().createCluster(createBody(newIdentity(), newClusterId())));
    expect(err).toBeInstanceOf(ClustersServiceBadResponseError);
    expect(isOutcomeUnknown(err)).toBe(true);
    await waitFor(() => lastSeen().closed, { timeoutMs: 10_000, describe: () => 'the client to close the connection' });
  });

  it('a lower limit set on the client is the one applied and named', async () => {
    srv.script({ status: 200 });
    const err = await failureOf(client(256 * 1024).getClusterStatus('abc'));
    expect((err as Error).message).toContain('larger than 256 KiB');
    await waitFor(() => lastSeen().closed, { timeoutMs: 10_000, describe: () => 'the client to close the connection' });
    expect(counter.pulled).toBeLessThanOrEqual(256 * 1024 + SLACK);
  });

  it('an answer that drips without end is ended by the per-attempt timeout, which covers the body', async () => {
    srv.script({ status: 200, drip: true });
    const slow = new ClustersServiceClient({ baseUrl: srv.url, requestTimeoutMs: 500, retry: { retries: 0 } });
    const err = await failureOf(slow.getCluster('abc'));
    expect(err).toBeInstanceOf(ClustersServiceTimeoutError);
    await waitFor(() => lastSeen().closed, { timeoutMs: 10_000, describe: () => 'the client to close the connection' });
  });

  it('a DELETE answer (body unused) is read only a few KiB, then the connection is closed', async () => {
    srv.script({ status: 202 });
    expect(await client().deleteCluster('abc')).toEqual({ alreadyGone: false });
    await waitFor(() => lastSeen().closed, { timeoutMs: 10_000, describe: () => 'the client to close the connection' });
    expect(SMALL_BODY_BYTES).toBeLessThanOrEqual(16 * 1024);
    expect(counter.pulled).toBeLessThanOrEqual(SMALL_BODY_BYTES + SLACK);
  });

  it('an error answer whose body never ends is read only a few KiB: the typed error, at once', async () => {
    srv.script({ status: 503 });
    const err = await failureOf(client().getCluster('abc'));
    expect(err).toBeInstanceOf(ClustersServiceServerError);
    expect(err).toMatchObject({ status: 503, code: undefined });
    await waitFor(() => lastSeen().closed, { timeoutMs: 10_000, describe: () => 'the client to close the connection' });
    expect(counter.pulled).toBeLessThanOrEqual(SMALL_BODY_BYTES + SLACK);
  });

  it('an error body within the small bound still gives its code and reason', async () => {
    srv.script({
      status: 400,
      body: JSON.stringify({ kind: 'Error', id: '400', href: '/api/aro_hcp/v1alpha1/errors/400', code: 'OCM-400', reason: 'bad version' }),
    });
    const err = await failureOf(client().getCluster('abc'));
    expect(err).toBeInstanceOf(ClustersServiceClientError);
    expect(err).toMatchObject({ code: 'OCM-400', reason: 'bad version' });
  });

  it('a redirect is not followed: nothing goes to the other address', async () => {
    const other = await startEndlessServer();
    try {
      srv.script({ status: 307, headers: { location: `${other.url}/api/aro_hcp/v1alpha1/clusters/abc` }, body: '' });
      const err = await failureOf(client().getCluster('abc'));
      expect(err).toMatchObject({ status: 307 });
      expect(other.seen).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe('Clusters Service client: a header that cannot be sent', () => {
  let srv: Awaited<ReturnType<typeof startEndlessServer>>;
  beforeAll(async () => {
    srv = await startEndlessServer();
    srv.script({ status: 201, body: '{}' });
  });
  afterAll(() => srv.close());

  it.each([
    ['CR/LF', 'abc\r\nx-injected: 1'],
    ['a character above 0xFF', 'corr-\u2603'],
  ])('a correlation id with %s fails a create before anything is sent, with a known outcome', async (_what, value) => {
    const cs = new ClustersServiceClient({ baseUrl: srv.url, retry: { retries: 0 } }).scoped({
      headers: { 'x-ms-correlation-request-id': value },
    });
    const err = await failureOf(cs.createCluster(createBody(newIdentity(), newClusterId())));
    expect(err).toBeInstanceOf(ClustersServiceUnsendableRequestError);
    expect(err).toMatchObject({ header: 'x-ms-correlation-request-id', retriable: false, outcomeUnknown: false });
    expect(isOutcomeUnknown(err)).toBe(false);
    expect((err as Error).message).not.toContain(value);
    expect(srv.seen).toEqual([]);
  });

  it('a bearer token that cannot be sent is never repeated in the error, and is waited out (retriable), not blamed on the operation', async () => {
    const token = 'secret-token\nwith-a-newline';
    const err = await failureOf(new ClustersServiceClient({ baseUrl: srv.url, retry: { retries: 0 }, token }).getCluster('abc'));
    expect(err).toMatchObject({ header: 'authorization', retriable: true, outcomeUnknown: false });
    expect((err as Error).message).not.toContain('secret-token');
    expect((err as Error).message).toContain('OPSTREAM_CLUSTERS_SERVICE_TOKEN_FILE');
    expect(srv.seen).toEqual([]);
  });
});

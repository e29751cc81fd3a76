import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClustersServiceClient, ClustersServiceThrottledError } from '../../../src/clusters-service';
import { classifyFailure } from '../../../src/app/handling-failures';
import { afterThrow, DEFAULT_RETRY_POLICY, MAX_RETRY_AFTER_MS, NO_FAILURES } from '../../../src/pipeline/queue/retry-policy';

/**
 * A Clusters Service `Retry-After` longer than the client's `retry.maxDelayMs` (issue 39): `Retry-After: 86400`
 * used to hold the caller, a pipeline worker, for 24 hours up to three times per handling (and past 24.8 days
 * the timer overflowed and it retried at once). Now such an answer ends the in-client retries at once with a
 * retriable error carrying the wait; a shorter one is still waited for in the client.
 */
describe('Clusters Service Retry-After has a ceiling: retry.maxDelayMs', () => {
  let server: Server;
  let url: string;
  let answers: Array<{ status: number; retryAfter?: string }>;
  let requests: number;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      const answer = answers.shift() ?? { status: 200 };
      if (answer.retryAfter !== undefined) res.setHeader('Retry-After', answer.retryAfter);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.status === 200 ? JSON.stringify({ kind: 'ClusterStatus', id: 'c1', state: 'ready' }) : '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    answers = [];
    requests = 0;
  });

  const client = (): ClustersServiceClient =>
    new ClustersServiceClient({ baseUrl: url, retry: { retries: 3, initialDelayMs: 5, maxDelayMs: 1_500, jitter: 0 } });

  /** The call's outcome, or 'still waiting' when it has not settled within `ms`. */
  const within = async <T>(call: Promise<T>, ms: number): Promise<T | 'still waiting'> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), ms)));
    try {
      return await Promise.race([call, late]);
    } finally {
      clearTimeout(timer);
    }
  };

  it.each([
    ['86400 (a day)', '86400'],
    ['2200000 (past what a timer can hold)', '2200000'],
    ['an HTTP date a day ahead', new Date(Date.now() + 86_400_000).toUTCString()],
  ])('Retry-After: %s ends the call at once with a retriable error carrying the wait', async (_what, retryAfter) => {
    answers = [{ status: 429, retryAfter }];
    const outcome = await within(
      client()
        .getClusterStatus('c1')
        .catch((err: unknown) => err),
      5_000,
    );
    expect(outcome).toBeInstanceOf(ClustersServiceThrottledError);
    const err = outcome as ClustersServiceThrottledError;
    expect(err.retriable).toBe(true);
    expect(err.retryAfterMs).toBeGreaterThan(86_000_000);
    expect(err.message).toMatch(/HTTP 429 \(Retry-After: \d+ s\)/);
    // The queue parks the operation for the wait (at most an hour), without holding a worker.
    const { kind, retryAfterMs } = classifyFailure(err);
    expect([kind, retryAfterMs]).toEqual(['retriable', err.retryAfterMs]);
    expect(afterThrow(DEFAULT_RETRY_POLICY, NO_FAILURES, kind, () => 0, retryAfterMs)).toMatchObject({
      retry: true,
      afterMs: MAX_RETRY_AFTER_MS,
    });
    expect(requests).toBe(1);
  });

  it('a Retry-After within retry.maxDelayMs is waited for in the client', async () => {
    answers = [{ status: 503, retryAfter: '1' }];
    const started = Date.now();
    expect(await client().getClusterStatus('c1')).toMatchObject({ state: 'ready' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(requests).toBe(2);
  });
});

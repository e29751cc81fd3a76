import * as changefeedCopy from '../../../src/changefeed/util/backoff';
import * as opstreamCopy from '../../../src/util/backoff';

// The change feed package keeps a private copy of the backoff (it depends on nothing of opstream):
// both copies answer the same table, so they cannot drift apart.
describe.each([
  ['src/util/backoff', opstreamCopy],
  ['src/changefeed/util/backoff', changefeedCopy],
] as const)('%s', (_name, { nextDelayMs, retry, DEFAULT_BACKOFF }) => {
  type BackoffPolicy = opstreamCopy.BackoffPolicy;
  const noJitter: BackoffPolicy = { retries: 3, initialDelayMs: 10, maxDelayMs: 50, multiplier: 2, jitter: 0 };

  describe('nextDelayMs', () => {
    it.each([
      [0, 10],
      [1, 20],
      [2, 40],
      [3, 50],
      [10, 50],
    ])('grows exponentially to the ceiling: attempt %i → %i ms', (attempt, expected) => {
      expect(nextDelayMs(noJitter, attempt)).toBe(expected);
    });

    it('takes a larger server Retry-After as is, and ignores a smaller one', () => {
      expect(nextDelayMs(noJitter, 0, 500)).toBe(500);
      expect(nextDelayMs(noJitter, 2, 5)).toBe(40);
    });

    it('jitter only shortens the delay, within the configured fraction', () => {
      const p = { ...noJitter, jitter: 0.5 };
      expect(nextDelayMs(p, 1, undefined, () => 0)).toBe(20);
      expect(nextDelayMs(p, 1, undefined, () => 1)).toBe(10);
    });

    it('has sane defaults', () => {
      expect(DEFAULT_BACKOFF.initialDelayMs).toBeLessThan(DEFAULT_BACKOFF.maxDelayMs);
    });
  });

  describe('retry', () => {
    const fast: BackoffPolicy = { retries: 3, initialDelayMs: 1, maxDelayMs: 2, multiplier: 2, jitter: 0 };

    it('returns the first success after retriable failures', async () => {
      let calls = 0;
      const result = await retry(
        async () => {
          calls++;
          if (calls < 3) throw new Error('transient');
          return 'ok';
        },
        () => ({ retry: true }),
        fast,
      );
      expect(result).toBe('ok');
      expect(calls).toBe(3);
    });

    it('rethrows a non-retriable error at once', async () => {
      let calls = 0;
      const boom = new Error('terminal');
      await expect(
        retry(
          async () => {
            calls++;
            throw boom;
          },
          () => ({ retry: false }),
          fast,
        ),
      ).rejects.toBe(boom);
      expect(calls).toBe(1);
    });

    it('gives up after the policy retries and rethrows the last error', async () => {
      let calls = 0;
      await expect(
        retry(
          async () => {
            calls++;
            throw new Error(`fail ${calls}`);
          },
          () => ({ retry: true }),
          fast,
        ),
      ).rejects.toThrow('fail 4');
      expect(calls).toBe(4);
    });

    it('stops waiting when aborted', async () => {
      const controller = new AbortController();
      const p = retry(
        async () => {
          throw new Error('transient');
        },
        () => ({ retry: true, retryAfterMs: 60_000 }),
        { ...fast, retries: Infinity },
        { signal: controller.signal, onRetry: () => controller.abort(new Error('stopped')) },
      );
      await expect(p).rejects.toThrow('stopped');
    });
  });
});

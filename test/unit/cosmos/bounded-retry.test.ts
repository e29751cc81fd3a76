import { BoundedRetry, CircuitOpenError } from '../../../src/cosmos/bounded-retry';
import { ManualClock } from '../../../src/util/clock';

const fast = { retries: Infinity, initialDelayMs: 5, maxDelayMs: 20, multiplier: 2, jitter: 0 };
const cosmosError = (code: number): Error => Object.assign(new Error(`HTTP ${code}`), { code });

describe('BoundedRetry', () => {
  it('retries retriable failures and returns the first success', async () => {
    const retry = new BoundedRetry({ deadlineMs: 5_000, backoff: fast });
    let calls = 0;
    const outcome = await retry.run(async () => {
      if (++calls < 3) throw cosmosError(503);
      return 'done';
    });
    expect(outcome).toEqual({ ok: true, value: 'done', attempts: 3 });
  });

  it('gives up at once on a failure no retry can fix', async () => {
    const retry = new BoundedRetry({ deadlineMs: 5_000, backoff: fast });
    const outcome = await retry.run(() => Promise.reject(cosmosError(413)));
    expect(outcome).toMatchObject({ ok: false, cause: 'rejected', attempts: 1, error: { code: 413 } });
    expect(retry.open).toBe(false);
  });

  it('gives up at the deadline, aborting the attempt in flight, then fails at once until the cool-down ends', async () => {
    const clock = new ManualClock(1_000);
    const retry = new BoundedRetry({ deadlineMs: 150, coolDownMs: 30_000, backoff: fast, clock });
    const signals: AbortSignal[] = [];
    const started = Date.now();
    const outcome = await retry.run(
      (signal) =>
        new Promise<never>((_resolve, reject) => {
          signals.push(signal);
          if (signals.length < 3) return reject(cosmosError(429));
          signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
        }),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(outcome).toMatchObject({ ok: false, cause: 'timeout', attempts: 3, error: { code: 429 } });
    expect(signals[2].aborted).toBe(true);
    expect(retry.open).toBe(true);

    let called = false;
    const skipped = await retry.run(async () => {
      called = true;
    });
    expect(called).toBe(false);
    expect(skipped).toMatchObject({ ok: false, cause: 'circuit-open', attempts: 0 });
    expect((skipped as { error: unknown }).error).toBeInstanceOf(CircuitOpenError);

    clock.advance(30_000);
    expect(await retry.run(async () => 'again')).toEqual({ ok: true, value: 'again', attempts: 1 });
    expect(retry.open).toBe(false);
  });

  it('honours a classifier: a programming error is not retried', async () => {
    const retry = new BoundedRetry({ deadlineMs: 5_000, backoff: fast });
    const outcome = await retry.run(
      () => Promise.reject(new RangeError('Maximum call stack size exceeded')),
      (err) => !(err instanceof RangeError),
    );
    expect(outcome).toMatchObject({ ok: false, cause: 'rejected', attempts: 1 });
  });
});

import type { Container } from '@azure/cosmos';
import { LockNotAcquiredError, SubscriptionLocks } from '../../../src/locks';
import { acquireRetryDelayMs, MIN_ACQUIRE_RETRY_DELAY_MS } from '../../../src/locks/acquire-backoff';

const backoff = { acquireRetryBaseMs: 20, acquireRetryMaxMs: 500 };
/** nextDelayMs takes `delay × (1 − random())`: 0 gives the full ceiling. */
const ceilingOnly = (): number => 0;

describe('acquireRetryDelayMs', () => {
  it.each([
    [0, 20],
    [1, 40],
    [2, 80],
    [3, 160],
    [4, 320],
    [5, 500],
    [6, 500],
    [2000, 500],
  ])('the ceiling doubles per attempt up to the cap: attempt %i → %i ms', (attempt, expected) => {
    expect(acquireRetryDelayMs(backoff, attempt, ceilingOnly)).toBe(expected);
  });

  it('is jittered over the whole range below the ceiling by the injected random', () => {
    expect(acquireRetryDelayMs(backoff, 2, () => 0.25)).toBe(60);
    expect(acquireRetryDelayMs(backoff, 2, () => 0.5)).toBe(40);
    expect(acquireRetryDelayMs(backoff, 2, () => 0.75)).toBe(20);
    expect(acquireRetryDelayMs(backoff, 9, () => 0.5)).toBe(250);
  });

  it('never waits less than the floor, so a retry is never immediate', () => {
    expect(acquireRetryDelayMs(backoff, 0, () => 0.999_999)).toBe(MIN_ACQUIRE_RETRY_DELAY_MS);
  });

  it('stays within (0, ceiling] for any random in [0, 1)', () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const ceiling = Math.min(500, 20 * 2 ** attempt);
      for (let r = 0; r < 1; r += 0.01) {
        const delay = acquireRetryDelayMs(backoff, attempt, () => r);
        expect(delay).toBeGreaterThanOrEqual(MIN_ACQUIRE_RETRY_DELAY_MS);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });
});

describe('SubscriptionLocks.acquire backoff', () => {
  const START = 1_000_000;
  let creates: number[];
  /** A Locks container where the lock is always held by someone else. */
  const heldElsewhere = {
    items: {
      create: async (): Promise<never> => {
        creates.push(Date.now() - START);
        throw Object.assign(new Error('conflict'), { code: 409 });
      },
    },
  } as unknown as Container;

  beforeEach(() => {
    creates = [];
    jest.useFakeTimers({ now: START });
  });
  afterEach(() => jest.useRealTimers());

  /** The rejection of an acquire that never succeeds, and when (ms after the start) it came. */
  const acquireUntilTimeout = async (locks: SubscriptionLocks, timeoutMs: number): Promise<{ err: unknown; at: number }> => {
    const result = locks.acquire('SUB-1', { timeoutMs }).then(
      () => ({ err: new Error('acquired a lock held elsewhere'), at: NaN }),
      (err: unknown) => ({ err, at: Date.now() - START }),
    );
    await jest.advanceTimersByTimeAsync(timeoutMs + 10_000);
    return result;
  };
  const gaps = (): number[] => creates.slice(1).map((t, i) => t - creates[i]);

  it('waits longer after each refusal, up to the cap, and stops exactly at the timeout', async () => {
    const locks = new SubscriptionLocks(heldElsewhere, {
      owner: 'me',
      acquireRetryBaseMs: 20,
      acquireRetryMaxMs: 100,
      random: ceilingOnly,
    });
    const { err, at } = await acquireUntilTimeout(locks, 1000);
    expect(err).toBeInstanceOf(LockNotAcquiredError);
    expect(err).toMatchObject({ lockId: 'sub-1', timeoutMs: 1000 });
    // 20, 40, 80, then capped at 100; the last wait is cut short to end at the deadline.
    expect(gaps()).toEqual([20, 40, 80, ...Array<number>(8).fill(100), 60]);
    expect(creates[creates.length - 1]).toBe(1000);
    expect(at).toBe(1000);
  });

  it('jitters every wait with the injected random', async () => {
    const draws = [0.5, 0.9, 0.1, 0.5];
    let i = 0;
    const random = (): number => draws[i++ % draws.length];
    const locks = new SubscriptionLocks(heldElsewhere, { owner: 'me', acquireRetryBaseMs: 20, acquireRetryMaxMs: 100, random });
    const { at } = await acquireUntilTimeout(locks, 300);
    expect(at).toBe(300);
    // ceilings 20, 40, 80, 100, 100 … × (1 − draw)
    expect(gaps().slice(0, 5)).toEqual([10, 4, 72, 50, 50]);
    expect(creates[creates.length - 1]).toBe(300);
  });

  it('a short timeout is honoured even when the first wait would be longer', async () => {
    const locks = new SubscriptionLocks(heldElsewhere, {
      owner: 'me',
      acquireRetryBaseMs: 400,
      acquireRetryMaxMs: 500,
      random: ceilingOnly,
    });
    const { err, at } = await acquireUntilTimeout(locks, 150);
    expect(err).toBeInstanceOf(LockNotAcquiredError);
    expect(creates).toEqual([0, 150]);
    expect(at).toBe(150);
  });
});

import type { Container } from '@azure/cosmos';
import { frontendLockRetryDelayMs, withFrontendLock } from '@opstream/frontend-simulator/subscription-lock';

describe('frontendLockRetryDelayMs', () => {
  const almostOne = (): number => 0.999_999;

  it.each([
    [0, 10],
    [1, 20],
    [2, 40],
    [4, 160],
    [5, 250],
    [50, 250],
  ])('the ceiling doubles per attempt up to the cap: attempt %i → %i ms', (attempt, expected) => {
    expect(frontendLockRetryDelayMs(attempt, 10, 250, almostOne)).toBe(expected);
  });

  it('is jittered by the injected random, never below 1 ms', () => {
    expect(frontendLockRetryDelayMs(3, 10, 250, () => 0.5)).toBe(40);
    expect(frontendLockRetryDelayMs(3, 10, 250, () => 0.25)).toBe(20);
    expect(frontendLockRetryDelayMs(3, 10, 250, () => 0)).toBe(1);
  });
});

describe('withFrontendLock', () => {
  const START = 5_000_000;
  let creates: number[];
  let deletes: unknown[];

  /** A Locks container that answers 409 `refusals` times, then grants the lock. */
  const locksContainer = (refusals: number): Container =>
    ({
      items: {
        create: async (): Promise<{ etag: string }> => {
          creates.push(Date.now() - START);
          if (creates.length <= refusals) throw Object.assign(new Error('conflict'), { code: 409 });
          return { etag: '"e1"' };
        },
      },
      item: () => ({
        delete: async (options: unknown): Promise<void> => {
          deletes.push(options);
        },
      }),
    }) as unknown as Container;

  beforeEach(() => {
    creates = [];
    deletes = [];
    jest.useFakeTimers({ now: START });
  });
  afterEach(() => jest.useRealTimers());

  it('backs off between refusals, then runs the section and releases with If-Match', async () => {
    const section = jest.fn(async () => 'done');
    const result = withFrontendLock(locksContainer(3), 'SUB', 'fe', section, { retryBaseMs: 10, retryMaxMs: 30, random: () => 0.5 });
    await jest.advanceTimersByTimeAsync(1000);
    await expect(result).resolves.toBe('done');
    expect(creates).toEqual([0, 5, 15, 30]);
    expect(section).toHaveBeenCalledTimes(1);
    expect(deletes).toEqual([{ accessCondition: { type: 'IfMatch', condition: '"e1"' } }]);
  });

  it('gives up exactly at the timeout without sleeping past it', async () => {
    const section = jest.fn(async () => 'never');
    const result = withFrontendLock(locksContainer(Infinity), 'SUB', 'fe', section, {
      timeoutMs: 100,
      retryBaseMs: 10,
      retryMaxMs: 40,
      random: () => 0.999_999,
    }).then(
      () => ({ err: undefined, at: NaN }),
      (err: unknown) => ({ err, at: Date.now() - START }),
    );
    await jest.advanceTimersByTimeAsync(10_000);
    const { err, at } = await result;
    expect(err).toEqual(expect.objectContaining({ message: 'frontend: subscription lock sub still held after 100 ms' }));
    // Waits of 10, 20, 40 ms, then the last one is cut to end at the deadline.
    expect(creates).toEqual([0, 10, 30, 70, 100]);
    expect(at).toBe(100);
    expect(section).not.toHaveBeenCalled();
  });
});

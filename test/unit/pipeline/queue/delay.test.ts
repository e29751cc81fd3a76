import { KeyWakeups, MAX_TIMER_MS } from '../../../../src/pipeline/queue/delay';
import { ManualTimers } from '../../../helpers/manual-timers';

describe('KeyWakeups', () => {
  it('wakes a key when its time comes, once', async () => {
    const clock = new ManualTimers();
    const woken: string[] = [];
    const w = new KeyWakeups(clock, (k) => woken.push(k));
    w.arm('r1', 500);
    await clock.advance(499);
    expect(woken).toEqual([]);
    await clock.advance(1);
    expect(woken).toEqual(['r1']);
    await clock.advance(10_000);
    expect(woken).toEqual(['r1']);
    expect(w.size).toBe(0);
  });

  it('keeps one timer per key: re-arming for the same instant is free, for another replaces it', async () => {
    const clock = new ManualTimers();
    const woken: Array<[string, number]> = [];
    const w = new KeyWakeups(clock, (k) => woken.push([k, clock.now()]));
    w.arm('r1', 500);
    w.arm('r1', 500);
    expect(clock.scheduled).toBe(1);
    w.arm('r1', 200);
    expect(clock.scheduled).toBe(1);
    await clock.advance(1000);
    expect(woken).toEqual([['r1', 200]]);
  });

  it('cancels one key or all', async () => {
    const clock = new ManualTimers();
    const woken: string[] = [];
    const w = new KeyWakeups(clock, (k) => woken.push(k));
    w.arm('r1', 100);
    w.arm('r2', 100);
    w.arm('r3', 100);
    w.cancel('r2');
    await clock.advance(100);
    expect(woken.sort()).toEqual(['r1', 'r3']);
    w.arm('r1', 300);
    w.cancelAll();
    await clock.advance(1000);
    expect(woken).toHaveLength(2);
    expect(clock.scheduled).toBe(0);
  });

  it('waits past what one timer can hold in steps, each below 2^31−1 ms, and wakes once, at the time', async () => {
    const clock = new ManualTimers();
    const asked: number[] = [];
    const recording = {
      now: () => clock.now(),
      setTimeout: (fn: () => void, ms: number) => (asked.push(ms), clock.setTimeout(fn, ms)),
      clearTimeout: (h: unknown) => clock.clearTimeout(h),
    };
    const woken: number[] = [];
    const w = new KeyWakeups(recording, () => woken.push(clock.now()));
    const at = 60 * 24 * 3600 * 1000; // 60 days
    w.arm('far', at);
    await clock.advance(at - 1);
    expect(woken).toEqual([]);
    await clock.advance(1);
    expect(woken).toEqual([at]);
    expect(asked.length).toBe(3);
    for (const ms of asked) expect(ms).toBeLessThanOrEqual(MAX_TIMER_MS);
  });

  it.each([NaN, Infinity, -Infinity])('refuses a wake-up at %s: a defect, never a timer', (at) => {
    const clock = new ManualTimers();
    const w = new KeyWakeups(clock, () => undefined);
    expect(() => w.arm('k', at)).toThrow(RangeError);
    expect(clock.scheduled).toBe(0);
  });
});

import { KeyWakeups } from '../../../../src/pipeline/queue/delay';
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
});

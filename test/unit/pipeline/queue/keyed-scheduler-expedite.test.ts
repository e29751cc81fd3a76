import { KeyedScheduler } from '../../../../src/pipeline/queue/keyed-scheduler';
import { again, done, type Outcome } from '../../../../src/pipeline/queue/outcome';
import { ManualTimers, flushMicrotasks } from '../../../helpers/manual-timers';

/** `expedite`: a hint that a parked item's wait is over (a Clusters Service event, say). */
describe('KeyedScheduler.expedite', () => {
  function scheduler(timers: ManualTimers, outcomes: Array<() => Promise<Outcome>>) {
    const handledAt: number[] = [];
    const s = new KeyedScheduler<string>({
      concurrency: 4,
      clock: timers,
      retry: { maxAttempts: 10 },
      handle: async () => {
        handledAt.push(timers.now());
        const next = outcomes.shift();
        return next ? next() : done();
      },
    });
    return { s, handledAt };
  }

  it('wakes a parked item now instead of at its delay, and only the ids asked for', async () => {
    const timers = new ManualTimers();
    const { s, handledAt } = scheduler(timers, [async () => again(10_000), async () => again(10_000)]);
    void s.enqueue('r1', 'op1', 'x');
    await flushMicrotasks();
    await timers.advance(100);
    expect(s.expedite(new Set(['other']))).toBe(0);
    expect(s.expedite(new Set(['op1']))).toBe(1);
    await timers.advance(0);
    expect(handledAt).toEqual([0, 100]);
  });

  it('an item expedited while being handled is due right after that handling parks it', async () => {
    const timers = new ManualTimers();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { s, handledAt } = scheduler(timers, [
      async () => {
        await gate;
        return again(10_000);
      },
    ]);
    void s.enqueue('r1', 'op1', 'x');
    await flushMicrotasks();
    expect(s.expedite(new Set(['op1']))).toBe(1);
    await timers.advance(50);
    release();
    await timers.advance(0);
    expect(handledAt).toEqual([0, 50]);
  });

  it('never shortens the backoff after a throw: an outage is not hurried by hints', async () => {
    const timers = new ManualTimers();
    const { s, handledAt } = scheduler(timers, [async () => Promise.reject(new Error('CS down'))]);
    void s.enqueue('r1', 'op1', 'x');
    await flushMicrotasks();
    s.expedite(new Set(['op1']));
    await timers.advance(10);
    expect(handledAt).toEqual([0]);
    await timers.advance(1000);
    expect(handledAt).toHaveLength(2);
  });
});

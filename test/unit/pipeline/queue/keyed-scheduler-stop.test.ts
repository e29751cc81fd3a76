import { KeyedScheduler } from '../../../../src/pipeline/queue/keyed-scheduler';
import { again, done, type Outcome } from '../../../../src/pipeline/queue/outcome';
import { ManualTimers, flushMicrotasks } from '../../../helpers/manual-timers';

/** Graceful shutdown of the scheduler: no new handling, a drain bounded in time, abandoned handlings fenced. */
describe('KeyedScheduler.stop', () => {
  it('lets a handling in flight finish within the drain, and starts nothing new', async () => {
    const timers = new ManualTimers();
    let release!: () => void;
    const handled: string[] = [];
    const s = new KeyedScheduler<number>({
      concurrency: 4,
      clock: timers,
      handle: async (_key, id, _item, _attempt, signal) => {
        if (id === 'slow') await new Promise<void>((resolve) => (release = resolve));
        handled.push(`${id}${signal.aborted ? ' (aborted)' : ''}`);
        return done();
      },
    });
    void s.enqueue('r1', 'slow', 1);
    void s.enqueue('r1', 'next', 2); // same key: waits behind "slow"
    await flushMicrotasks(5);
    const stopped = s.stop({ drainMs: 1000 });
    await timers.advance(500);
    release();
    await expect(stopped).resolves.toEqual({ abandoned: 0 });
    expect(handled).toEqual(['slow']);
    await expect(s.enqueue('r2', 'late', 3)).resolves.toMatchObject({ kind: 'failed' });
  });

  it('abandons a handling still running when the drain ends: aborted with the reason, never counted as a failure', async () => {
    const timers = new ManualTimers();
    const outcomes: Outcome[] = [];
    let seen: unknown;
    const s = new KeyedScheduler<number>({
      concurrency: 4,
      clock: timers,
      retry: { maxAttempts: 1 },
      onOutcome: (_k, _id, _item, outcome) => outcomes.push(outcome),
      handle: (_key, _id, _item, _attempt, signal) =>
        new Promise<Outcome>((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            seen = signal.reason;
            reject(signal.reason as Error);
          }),
        ),
    });
    const settled = s.enqueue('r1', 'stuck', 1);
    await flushMicrotasks(5);
    const reason = new Error('shutting down');
    const stopped = s.stop({ drainMs: 1000, reason });
    await timers.advance(999);
    expect(seen).toBeUndefined();
    await timers.advance(1);
    await expect(stopped).resolves.toEqual({ abandoned: 1 });
    expect(seen).toBe(reason);
    await expect(settled).resolves.toEqual({ kind: 'done', note: 'abandoned at stop' });
    expect(outcomes).toEqual([]); // no "failed": nothing is dead-lettered for a stop
  });

  it('drops parked items: their lease’s next owner relists them', async () => {
    const timers = new ManualTimers();
    let runs = 0;
    const s = new KeyedScheduler<number>({
      concurrency: 4,
      clock: timers,
      handle: async () => {
        runs++;
        return again(100);
      },
    });
    await s.enqueue('r1', 'parked', 1);
    await expect(s.stop({ drainMs: 1000 })).resolves.toEqual({ abandoned: 0 });
    await timers.advance(1000);
    expect(runs).toBe(1);
    expect(s.size).toBe(0);
  });
});

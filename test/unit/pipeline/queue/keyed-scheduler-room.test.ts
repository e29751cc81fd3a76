import { KeyedScheduler } from '../../../../src/pipeline/queue/keyed-scheduler';
import { again, done, type Outcome } from '../../../../src/pipeline/queue/outcome';
import { ManualTimers, flushMicrotasks } from '../../../helpers/manual-timers';

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** `whenFewerThan`: what a producer that must respect the queue's bound (a relist) waits on. */
describe('KeyedScheduler.whenFewerThan', () => {
  function scheduler(gates: Map<string, Promise<Outcome>>): KeyedScheduler<string> {
    return new KeyedScheduler<string>({
      concurrency: 8,
      clock: new ManualTimers(),
      handle: (_k, id) => gates.get(id) ?? Promise.resolve(done()),
    });
  }

  it('resolves at once below the limit; otherwise once an item is done, not when one is merely parked', async () => {
    const a = deferred<Outcome>();
    const b = deferred<Outcome>();
    const s = scheduler(
      new Map([
        ['a', a.promise],
        ['b', b.promise],
      ]),
    );
    await s.whenFewerThan(1);
    void s.enqueue('k1', 'a', 'a');
    void s.enqueue('k2', 'b', 'b');
    let room = false;
    void s.whenFewerThan(2).then(() => (room = true));
    b.resolve(again(60_000, 'parked'));
    await flushMicrotasks(10);
    expect([room, s.size]).toEqual([false, 2]);
    a.resolve(done());
    await flushMicrotasks(10);
    expect([room, s.size]).toEqual([true, 1]);
    expect(s.has('k2', 'b')).toBe(true);
    expect(s.has('k1', 'a')).toBe(false);
  });

  it('resolves when items are removed (a lease lost); rejects when its signal aborts, and once the scheduler stopped', async () => {
    const never = new Promise<Outcome>(() => undefined);
    const s = scheduler(
      new Map([
        ['a', never],
        ['b', never],
      ]),
    );
    void s.enqueue('k1', 'a', 'a');
    void s.enqueue('k2', 'b', 'b');
    const removed = s.whenFewerThan(2);
    s.remove((_k, id) => id === 'b');
    await expect(removed).resolves.toBeUndefined();

    const stop = new AbortController();
    const aborted = s.whenFewerThan(1, stop.signal);
    stop.abort(new Error('lease lost'));
    await expect(aborted).rejects.toThrow('lease lost');

    const waiting = s.whenFewerThan(1);
    void s.stop({ drainMs: 0 });
    await expect(waiting).rejects.toThrow('scheduler stopped');
    await expect(s.whenFewerThan(1)).rejects.toThrow('scheduler stopped');
  });
});

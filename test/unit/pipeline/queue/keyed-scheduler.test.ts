import { KeyedScheduler } from '../../../../src/pipeline/queue/keyed-scheduler';
import { Outcome, again, done } from '../../../../src/pipeline/queue/outcome';
import { ManualTimers, flushMicrotasks } from '../../../helpers/manual-timers';

interface Item {
  seq: number;
  value: string;
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('KeyedScheduler', () => {
  it('never handles two items of one key at once, and handles them oldest first', async () => {
    const timers = new ManualTimers();
    const log: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const s = new KeyedScheduler<Item>({
      concurrency: 4,
      clock: timers,
      order: (a, b) => a.seq - b.seq,
      handle: async (key, id) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await flushMicrotasks(3);
        log.push(`${key}/${id}`);
        inFlight--;
        return done();
      },
    });
    await Promise.all([s.enqueue('r1', 'b', { seq: 2, value: 'x' }), s.enqueue('r1', 'a', { seq: 1, value: 'y' })]);
    expect(maxInFlight).toBe(1);
    expect(log).toEqual(['r1/a', 'r1/b']);
  });

  it('runs different keys in parallel up to the concurrency bound', async () => {
    const gates = [deferred(), deferred(), deferred()];
    let inFlight = 0;
    let maxInFlight = 0;
    const s = new KeyedScheduler<number>({
      concurrency: 2,
      clock: new ManualTimers(),
      handle: async (_k, _id, i) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await gates[i].promise;
        inFlight--;
        return done();
      },
    });
    const all = [0, 1, 2].map((i) => s.enqueue(`k${i}`, 'x', i));
    await flushMicrotasks();
    expect(inFlight).toBe(2);
    gates.forEach((g) => g.resolve());
    await Promise.all(all);
    expect(maxInFlight).toBe(2);
  });

  it('collapses repeats while an item waits: the latest state is handled once', async () => {
    const gate = deferred();
    const seen: string[] = [];
    const s = new KeyedScheduler<string>({
      concurrency: 1,
      clock: new ManualTimers(),
      handle: async (key, _id, v) => {
        if (key === 'blocker') await gate.promise;
        else seen.push(v);
        return done();
      },
    });
    const blocker = s.enqueue('blocker', 'b', 'b');
    const p1 = s.enqueue('r', 'op', 'v1');
    const p2 = s.enqueue('r', 'op', 'v2');
    const p3 = s.enqueue('r', 'op', 'v3');
    gate.resolve();
    await Promise.all([blocker, p1, p2, p3]);
    expect(seen).toEqual(['v3']);
  });

  it('handles an item again when it changed during its handling', async () => {
    const gate = deferred();
    const seen: string[] = [];
    const s = new KeyedScheduler<string>({
      concurrency: 4,
      clock: new ManualTimers(),
      handle: async (_k, _id, v) => {
        seen.push(v);
        if (v === 'v1') await gate.promise;
        return done();
      },
    });
    const p1 = s.enqueue('r', 'op', 'v1');
    await flushMicrotasks();
    const p2 = s.enqueue('r', 'op', 'v2');
    gate.resolve();
    await Promise.all([p1, p2]);
    expect(seen).toEqual(['v1', 'v2']);
    expect(s.size).toBe(0);
  });

  it("a copy enqueued during the handling that `redundant` dismisses leaves the handling's outcome in force", async () => {
    const timers = new ManualTimers();
    const gate = deferred();
    const own = new Set<string>();
    const handledAt: Array<[string, number]> = [];
    const s = new KeyedScheduler<string>({
      concurrency: 4,
      clock: timers,
      redundant: (next) => own.has(next),
      handle: async (_k, _id, v) => {
        handledAt.push([v, timers.now()]);
        if (v === 'v1') {
          await gate.promise;
          own.add('v2'); // the handler's own write, recorded only now
        }
        return again(1000);
      },
    });
    const p1 = s.enqueue('r', 'op', 'v1');
    await flushMicrotasks();
    const p2 = s.enqueue('r', 'op', 'v2'); // its echo, seen before the handler finished
    gate.resolve();
    await expect(p1).resolves.toEqual(again(1000));
    await expect(p2).resolves.toEqual(again(1000));
    await flushMicrotasks();
    expect(handledAt).toEqual([['v1', 0]]);
    await timers.advance(1000);
    expect(handledAt).toEqual([
      ['v1', 0],
      ['v2', 1000],
    ]);
  });

  it('parks an item that asks to be looked at again, and wakes it when its delay passes', async () => {
    const timers = new ManualTimers();
    const outcomes: Outcome[] = [again(1000), again(5000), done()];
    const handledAt: number[] = [];
    const s = new KeyedScheduler<string>({
      concurrency: 4,
      clock: timers,
      handle: async () => {
        handledAt.push(timers.now());
        return outcomes.shift()!;
      },
    });
    await expect(s.enqueue('r', 'op', 'x')).resolves.toEqual(again(1000));
    expect(s.size).toBe(1);
    await timers.advance(999);
    expect(handledAt).toEqual([0]);
    await timers.advance(1);
    expect(handledAt).toEqual([0, 1000]);
    await timers.advance(5000);
    expect(handledAt).toEqual([0, 1000, 6000]);
    expect(s.size).toBe(0);
    expect(timers.scheduled).toBe(0);
  });

  it('a new event for a parked item handles it at once instead of waiting out the delay', async () => {
    const timers = new ManualTimers();
    const handledAt: number[] = [];
    const s = new KeyedScheduler<string>({
      concurrency: 4,
      clock: timers,
      handle: async () => {
        handledAt.push(timers.now());
        return again(10_000);
      },
    });
    await s.enqueue('r', 'op', 'x');
    await timers.advance(100);
    await s.enqueue('r', 'op', 'y');
    expect(handledAt).toEqual([0, 100]);
  });

  it('retries a throwing handler with backoff and fails it after maxAttempts', async () => {
    const timers = new ManualTimers();
    let calls = 0;
    const failures: Outcome[] = [];
    const s = new KeyedScheduler<string>({
      concurrency: 4,
      clock: timers,
      retry: { maxAttempts: 3, backoff: { retries: Infinity, initialDelayMs: 100, maxDelayMs: 1000, multiplier: 2, jitter: 0 } },
      handle: async () => {
        calls++;
        throw new Error('cosmos unavailable');
      },
      onOutcome: (_k, _i, _item, o) => o.kind === 'failed' && failures.push(o),
    });
    const first = await s.enqueue('r', 'op', 'x');
    expect(first).toMatchObject({ kind: 'again', afterMs: 100 });
    await timers.advance(100);
    expect(calls).toBe(2);
    await timers.advance(200);
    expect(calls).toBe(3);
    expect(failures).toHaveLength(1);
    expect((failures[0] as { error: Error }).error.message).toBe('cosmos unavailable');
    expect(s.size).toBe(0);
  });

  it('waits out a dependency outage: retriable throws back off to the ceiling but never fail the item', async () => {
    const timers = new ManualTimers();
    let calls = 0;
    const outcomes: Outcome[] = [];
    const transient = Object.assign(new Error('Clusters Service unavailable'), { retriable: true });
    const s = new KeyedScheduler<string>({
      concurrency: 4,
      clock: timers,
      retry: { maxAttempts: 3, backoff: { retries: Infinity, initialDelayMs: 100, maxDelayMs: 400, multiplier: 2, jitter: 0 } },
      classify: (err) => ((err as { retriable?: boolean }).retriable === true ? 'retriable' : 'counted'),
      handle: async () => {
        calls++;
        if (calls <= 10) throw transient;
        if (calls <= 12) throw new Error('a bug');
        return done('recovered');
      },
      onOutcome: (_k, _i, _item, o) => outcomes.push(o),
    });
    await s.enqueue('r', 'op', 'x');
    for (let i = 0; i < 12; i++) await timers.advance(400);
    expect(outcomes.filter((o) => o.kind === 'failed')).toHaveLength(0);
    expect(outcomes.slice(0, 5).map((o) => (o.kind === 'again' ? o.afterMs : -1))).toEqual([100, 200, 400, 400, 400]);
    expect(outcomes.at(-1)).toEqual({ kind: 'done', note: 'recovered' });
    expect(calls).toBe(13);
  });

  it('remove() drops parked items and settles their waiters', async () => {
    const timers = new ManualTimers();
    const s = new KeyedScheduler<{ range: string }>({ concurrency: 4, clock: timers, handle: async () => again(60_000) });
    await s.enqueue('r1', 'a', { range: 'A' });
    await s.enqueue('r2', 'b', { range: 'B' });
    await flushMicrotasks();
    expect(s.remove((_k, _id, item) => item.range === 'A')).toBe(1);
    expect(s.snapshot().map((e) => e.id)).toEqual(['b']);
    expect(timers.scheduled).toBe(1);
  });

  it('stop() waits for in-flight work and refuses new work', async () => {
    const gate = deferred();
    let finished = false;
    const s = new KeyedScheduler<string>({
      concurrency: 4,
      clock: new ManualTimers(),
      handle: async () => {
        await gate.promise;
        finished = true;
        return done();
      },
    });
    void s.enqueue('r', 'op', 'x');
    await flushMicrotasks();
    const stopping = s.stop();
    gate.resolve();
    await stopping;
    expect(finished).toBe(true);
    await expect(s.enqueue('r', 'op2', 'y')).resolves.toMatchObject({ kind: 'failed' });
  });

  it('fences a handling in flight when its item is removed: the signal aborts with the reason, and the item is not parked again', async () => {
    const timers = new ManualTimers();
    const gate = deferred();
    let seen: AbortSignal | undefined;
    const outcomes: Outcome[] = [];
    const s = new KeyedScheduler<Item>({
      concurrency: 4,
      clock: timers,
      handle: async (_k, _id, _item, _attempt, signal) => {
        seen = signal;
        await gate.promise;
        signal.throwIfAborted();
        return again(10);
      },
      onOutcome: (_k, _id, _item, outcome) => outcomes.push(outcome),
    });
    const first = s.enqueue('r1', 'a', { seq: 1, value: 'x' });
    await flushMicrotasks();
    expect(seen?.aborted).toBe(false);
    const reason = new Error('lease moved');
    expect(s.remove((key) => key === 'r1', reason)).toBe(1);
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(reason);
    gate.resolve();
    await first;
    await flushMicrotasks(5);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ kind: 'again', note: expect.stringContaining('lease moved') });
    expect(s.size).toBe(0);
    expect(timers.scheduled).toBe(0);
  });

  it('gives each handling its own signal: removing other keys leaves it alone', async () => {
    const gate = deferred();
    let seen: AbortSignal | undefined;
    const s = new KeyedScheduler<Item>({
      concurrency: 4,
      clock: new ManualTimers(),
      handle: async (_k, _id, _item, _attempt, signal) => {
        seen = signal;
        await gate.promise;
        return done();
      },
    });
    const handled = s.enqueue('r1', 'a', { seq: 1, value: 'x' });
    await flushMicrotasks();
    s.remove((key) => key === 'r2', new Error('other lease'));
    gate.resolve();
    await expect(handled).resolves.toEqual({ kind: 'done', note: undefined });
    expect(seen?.aborted).toBe(false);
  });
});

import { KeyedScheduler } from '../../../../src/pipeline/queue/keyed-scheduler';
import { again, done, type Outcome } from '../../../../src/pipeline/queue/outcome';
import { ManualTimers } from '../../../helpers/manual-timers';

/**
 * More arrives than the workers can take: each operation needs a dispatch, then a status check
 * 1 s later, then it is done; every handling takes 100 ms of a single worker (10 handlings/s, so
 * 5 operations/s at most), and 8 operations arrive each second. Counted over 60 s of this overload.
 */
async function overload(startedFirst: boolean): Promise<{ completed: number; sinceDispatchMs: number[] }> {
  const timers = new ManualTimers();
  const dispatchedAt = new Map<string, number>();
  const sinceDispatchMs: number[] = [];
  const s = new KeyedScheduler<string>({
    concurrency: 1,
    clock: timers,
    startedFirst,
    handle: (_key, id) =>
      new Promise<Outcome>((resolve) =>
        timers.setTimeout(() => {
          if (!dispatchedAt.has(id)) {
            dispatchedAt.set(id, timers.now());
            return resolve(again(1000)); // dispatched: look again in a second
          }
          sinceDispatchMs.push(timers.now() - dispatchedAt.get(id)!);
          resolve(done());
        }, 100),
      ),
  });
  for (let t = 0; t < 60_000; t += 125) {
    const id = `op-${t}`;
    void s.enqueue(id, id, id);
    await timers.advance(125);
  }
  void s.stop();
  return { completed: sinceDispatchMs.length, sinceDispatchMs };
}

describe('KeyedScheduler under more load than its workers take', () => {
  it("with startedFirst, operations complete at the workers' capacity, and once dispatched they finish promptly", async () => {
    const fifo = await overload(false);
    const startedFirst = await overload(true);
    // Capacity: 600 handlings in 60 s, two per operation; new work gets one turn in eight at least.
    expect(startedFirst.completed).toBeGreaterThanOrEqual(290);
    expect(startedFirst.completed).toBeGreaterThan(1.1 * fifo.completed);
    // Dispatched operations wait for their check: behind the whole backlog when first come first served.
    expect(Math.max(...startedFirst.sinceDispatchMs)).toBeLessThan(2_000);
    expect(Math.max(...fifo.sinceDispatchMs)).toBeGreaterThan(10_000);
  });
});

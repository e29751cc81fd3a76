import { deliverWithIsolation, type IsolationDeps } from '../../../src/changefeed/feed/poison-isolation';

const policy = { retries: 2, initialDelayMs: 10, maxDelayMs: 40, multiplier: 2, jitter: 0 };

/** A handler that fails whenever a batch contains one of `bad` (or fails `transient` times first). */
function harness(bad: number[], options: { transient?: number; poisonFailures?: number } = {}) {
  const delivered: number[][] = [];
  const poisoned: Array<[number, string]> = [];
  const sleeps: number[] = [];
  let transient = options.transient ?? 0;
  let poisonFailures = options.poisonFailures ?? 0;
  const deps: IsolationDeps<number> = {
    attempt: async (docs) => {
      if (transient > 0) {
        transient--;
        throw new Error('downstream 503');
      }
      const hit = docs.find((d) => bad.includes(d));
      if (hit !== undefined) throw new Error(`cannot handle ${hit}`);
      delivered.push([...docs]);
    },
    onPoison: async (doc, error) => {
      if (poisonFailures > 0) {
        poisonFailures--;
        throw new Error('dead-letter store down');
      }
      poisoned.push([doc, (error as Error).message]);
    },
    handlerRetry: policy,
    poisonAttempts: 3,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
  };
  return { deps, delivered, poisoned, sleeps };
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe('poison isolation (bisecting a failing batch)', () => {
  it('delivers a good batch in one attempt', async () => {
    const h = harness([]);
    const result = await deliverWithIsolation(range(5), h.deps);
    expect(h.delivered).toEqual([range(5)]);
    expect(result).toEqual({ poisoned: [], attempts: 1 });
  });

  it('rides out transient failures with backoff before isolating anything', async () => {
    const h = harness([], { transient: 2 });
    const result = await deliverWithIsolation(range(4), h.deps);
    expect(h.delivered).toEqual([range(4)]);
    expect(result.attempts).toBe(3);
    expect(h.sleeps).toEqual([10, 20]);
  });

  it('isolates exactly the poison document; the others are delivered in order', async () => {
    const h = harness([6]);
    const result = await deliverWithIsolation(range(10), h.deps);
    expect(h.poisoned).toEqual([[6, 'cannot handle 6']]);
    expect(result.poisoned).toEqual([6]);
    expect(h.delivered.flat()).toEqual([1, 2, 3, 4, 5, 7, 8, 9, 10]);
  });

  it('isolates several poison documents of one batch', async () => {
    const h = harness([1, 7, 8]);
    await deliverWithIsolation(range(8), h.deps);
    expect(h.poisoned.map(([d]) => d)).toEqual([1, 7, 8]);
    expect(h.delivered.flat()).toEqual([2, 3, 4, 5, 6]);
  });

  it('gives an isolated document poisonAttempts attempts with backoff before onPoison', async () => {
    const attempts: Array<{ docs: number[]; isolated: boolean }> = [];
    const h = harness([2]);
    const inner = h.deps.attempt;
    h.deps.attempt = async (docs, info) => {
      attempts.push({ docs: [...docs], isolated: info.isolated });
      return inner(docs, info);
    };
    await deliverWithIsolation([1, 2], h.deps);
    expect(attempts.filter((a) => a.docs.length === 2)).toHaveLength(3);
    expect(attempts.filter((a) => a.docs.length === 1 && a.docs[0] === 2)).toHaveLength(3);
    expect(attempts.filter((a) => a.docs.length === 1).every((a) => a.isolated)).toBe(true);
  });

  it('a one-document page counts its first attempts towards poisonAttempts', async () => {
    const h = harness([9]);
    const result = await deliverWithIsolation([9], h.deps);
    expect(result.attempts).toBe(3);
    expect(h.poisoned).toEqual([[9, 'cannot handle 9']]);
  });

  it('bounds the attempts for one poison document in a large page', async () => {
    const h = harness([77]);
    const result = await deliverWithIsolation(range(100), h.deps);
    // 3 whole-batch + ~2 per bisect level (7 levels) + 3 isolated
    expect(result.attempts).toBeLessThanOrEqual(3 + 2 * 7 + 3);
    expect(h.delivered.flat()).toEqual(range(100).filter((d) => d !== 77));
  });

  it('retries a failing onPoison hook and then throws, so the range is not moved past an unrecorded document', async () => {
    const h = harness([1], { poisonFailures: 1 });
    await deliverWithIsolation([1], h.deps);
    expect(h.poisoned).toEqual([[1, 'cannot handle 1']]);

    const stuck = harness([1], { poisonFailures: 100 });
    await expect(deliverWithIsolation([1], stuck.deps)).rejects.toThrow('dead-letter store down');
  });

  it('stops at once when aborted (lease lost or shutdown)', async () => {
    const controller = new AbortController();
    const h = harness([3]);
    h.deps.signal = controller.signal;
    h.deps.attempt = async () => {
      controller.abort(new Error('lease lost'));
      throw new Error('boom');
    };
    await expect(deliverWithIsolation(range(4), h.deps)).rejects.toThrow('lease lost');
  });

  it('does nothing for an empty page', async () => {
    const h = harness([]);
    expect(await deliverWithIsolation([], h.deps)).toEqual({ poisoned: [], attempts: 0 });
  });
});

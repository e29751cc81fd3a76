import { cachedFor } from '../../../src/ops/cached-for';
import { ManualClock } from '../../../src/util/clock';

/** /readyz from an unauthenticated port: one Cosmos read a second at most, however many ask. */
describe('cachedFor', () => {
  function counted(): { calls: number; release: Array<(v: string) => void>; fn: () => Promise<string> } {
    const state = {
      calls: 0,
      release: [] as Array<(v: string) => void>,
      fn: () => {
        state.calls++;
        return new Promise<string>((resolve) => state.release.push(resolve));
      },
    };
    return state;
  }

  it('callers while an answer is on its way share it', async () => {
    const clock = new ManualClock(0);
    const source = counted();
    const get = cachedFor(1000, source.fn, clock);
    const answers = Promise.all([get(), get(), get()]);
    expect(source.calls).toBe(1);
    source.release[0]('ready');
    expect(await answers).toEqual(['ready', 'ready', 'ready']);
  });

  it('an answer serves for the given time after it came, then the next caller asks again', async () => {
    const clock = new ManualClock(0);
    const source = counted();
    const get = cachedFor(1000, source.fn, clock);
    const first = get();
    clock.advance(300); // the read took 300 ms: the second starts from the answer, not the question
    source.release[0]('first');
    expect(await first).toBe('first');
    clock.advance(999);
    expect(await get()).toBe('first');
    expect(source.calls).toBe(1);
    clock.advance(1);
    const second = get();
    expect(source.calls).toBe(2);
    source.release[1]('second');
    expect(await second).toBe('second');
  });

  it('a failure is not kept: the next caller asks again', async () => {
    const clock = new ManualClock(0);
    let calls = 0;
    const get = cachedFor(
      1000,
      async () => {
        if (++calls === 1) throw new Error('cosmos down');
        return 'ready';
      },
      clock,
    );
    await expect(get()).rejects.toThrow('cosmos down');
    expect(await get()).toBe('ready');
    expect(calls).toBe(2);
  });
});

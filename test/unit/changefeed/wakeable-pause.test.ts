import { WakeablePause } from '../../../src/changefeed/feed/wake';

/** Whether `promise` has settled by the next macrotask (a pending 60 s pause has not). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('WakeablePause', () => {
  const live = new AbortController();
  afterAll(() => live.abort(new Error('test over')));

  it('a wake ends a pause at once', async () => {
    const pause = new WakeablePause();
    const waiting = pause.wait(60_000, live.signal);
    expect(await settled(waiting)).toBe(false);
    pause.wake();
    expect(await settled(waiting)).toBe(true);
  });

  it('a wake between pauses (a read in flight) skips the next pause only, and wakes in a row count once', async () => {
    const pause = new WakeablePause();
    pause.wake();
    pause.wake();
    expect(await settled(pause.wait(60_000, live.signal))).toBe(true);
    const next = pause.wait(60_000, live.signal);
    expect(await settled(next)).toBe(false);
    pause.wake();
    await next;
  });

  it('a pause of 0 consumes a pending wake: the read it stands for happens anyway', async () => {
    const pause = new WakeablePause();
    pause.wake();
    await pause.wait(0, live.signal);
    const next = pause.wait(60_000, live.signal);
    expect(await settled(next)).toBe(false);
    pause.wake();
    await next;
  });

  it('ends with the signal reason when aborted, during a pause or before it', async () => {
    const pause = new WakeablePause();
    const controller = new AbortController();
    const waiting = pause.wait(60_000, controller.signal);
    controller.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    await expect(pause.wait(10, controller.signal)).rejects.toThrow('stopping');
    // A wake after the abort has no pause to end; it is kept for a later pause, harmlessly.
    pause.wake();
    expect(await settled(pause.wait(60_000, live.signal))).toBe(true);
  });
});

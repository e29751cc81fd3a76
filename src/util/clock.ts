/**
 * Time as a dependency, so timing decisions can be stepped in tests instead of slept through.
 * The change feed package keeps its own copy (it depends on nothing of opstream); the interfaces
 * are the same, so one clock serves both.
 */
export interface Clock {
  now(): number;
}

/**
 * A clock that can also wake its caller: the one clock the composition root injects into the
 * pipeline (its queue's delays included), stepped by hand in tests.
 */
export interface TimerClock extends Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Wall time and Node's timers; a pending timer never keeps the process alive. */
export const systemClock: TimerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current = 0) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

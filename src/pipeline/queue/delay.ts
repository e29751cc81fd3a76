import type { TimerClock } from '../../util/clock';

/** The longest a Node.js timer waits (2^31−1 ms, ~24.8 days): a longer one fires at once. Longer waits are re-armed in steps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One wake-up per key, at the earliest time one of its items falls due (client-go's delaying
 * queue, keyed): re-arming for the same instant is a no-op, for another instant replaces the timer.
 */
export class KeyWakeups {
  private readonly timers = new Map<string, { at: number; handle: unknown }>();

  constructor(
    private readonly clock: TimerClock,
    private readonly wake: (key: string) => void,
  ) {}

  /**
   * Wakes `key` at `at` (clock time); replaces an earlier arrangement for it. A wait past what a
   * timer can hold is re-armed in steps until `at`; a non-finite `at` is a defect and throws, never
   * a timer (Node would fire it at once, over and over).
   */
  arm(key: string, at: number): void {
    if (!Number.isFinite(at)) throw new RangeError(`wake-up of ${key} at ${at}: not a time (a defect)`);
    const current = this.timers.get(key);
    if (current?.at === at) return;
    if (current) this.clock.clearTimeout(current.handle);
    this.schedule(key, at);
  }

  private schedule(key: string, at: number): void {
    const waitMs = Math.min(Math.max(0, at - this.clock.now()), MAX_TIMER_MS);
    const handle = this.clock.setTimeout(() => {
      if (this.clock.now() < at) return this.schedule(key, at);
      this.timers.delete(key);
      this.wake(key);
    }, waitMs);
    this.timers.set(key, { at, handle });
  }

  cancel(key: string): void {
    const current = this.timers.get(key);
    if (!current) return;
    this.clock.clearTimeout(current.handle);
    this.timers.delete(key);
  }

  cancelAll(): void {
    for (const key of [...this.timers.keys()]) this.cancel(key);
  }

  /** Keys with a wake-up pending (for tests and state dumps). */
  get size(): number {
    return this.timers.size;
  }
}

import type { TimerClock } from '@opstream/changefeed';

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

  /** Wakes `key` at `at` (clock time); replaces an earlier arrangement for it. */
  arm(key: string, at: number): void {
    const current = this.timers.get(key);
    if (current?.at === at) return;
    if (current) this.clock.clearTimeout(current.handle);
    const handle = this.clock.setTimeout(() => {
      this.timers.delete(key);
      this.wake(key);
    }, at - this.clock.now());
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

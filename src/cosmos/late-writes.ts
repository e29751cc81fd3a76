import { nextDelayMs, type BackoffPolicy } from '../util/backoff';
import { systemClock, type TimerClock } from '../util/clock';

export interface LateWritesOptions {
  backoff?: BackoffPolicy;
  maxPending?: number;
  clock?: TimerClock;
}

const LATE_WRITE_DEFAULTS = Object.freeze({
  backoff: Object.freeze({ retries: Infinity, initialDelayMs: 1_000, maxDelayMs: 60_000, multiplier: 2, jitter: 0.2 }) as BackoffPolicy,
  maxPending: 10_000,
});

/** What one background attempt concluded: done (written or refused for good) or try again later. */
export type LateAttempt = 'done' | 'again';

/**
 * Writes that could not be done now and must not hold up their caller: each is tried again in the
 * background, with backoff, until it lands or is refused for good. Kept in memory only, keyed so
 * the same write is pending once, and bounded: past `maxPending`, new ones are refused (the caller
 * reports them). A restart forgets what is pending.
 */
export class LateWrites {
  private readonly pending = new Map<string, unknown>();
  private readonly backoff: BackoffPolicy;
  private readonly maxPending: number;
  private readonly clock: TimerClock;

  constructor(options: LateWritesOptions = {}) {
    this.backoff = options.backoff ?? LATE_WRITE_DEFAULTS.backoff;
    this.maxPending = options.maxPending ?? LATE_WRITE_DEFAULTS.maxPending;
    this.clock = options.clock ?? systemClock;
  }

  /** Schedules `attempt` until it says `done`; false when the same key is pending already or there is no room. */
  add(key: string, attempt: () => Promise<LateAttempt>): boolean {
    if (this.pending.has(key) || this.pending.size >= this.maxPending) return false;
    this.schedule(key, attempt, 0);
    return true;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Forgets everything pending (at shutdown). */
  clear(): void {
    for (const timer of this.pending.values()) this.clock.clearTimeout(timer);
    this.pending.clear();
  }

  private schedule(key: string, attempt: () => Promise<LateAttempt>, n: number): void {
    const timer = this.clock.setTimeout(
      () => {
        void attempt()
          .catch((): LateAttempt => 'again')
          .then((result) => {
            if (this.pending.get(key) !== timer) return; // cleared meanwhile
            if (result === 'done') this.pending.delete(key);
            else this.schedule(key, attempt, n + 1);
          });
      },
      nextDelayMs(this.backoff, n),
    );
    this.pending.set(key, timer);
  }
}

/**
 * Retries for a write that must not hold its caller for long (the dead letter of a change-feed
 * document: the range waits for it). A call retries what may pass later (429, 5xx, timeouts,
 * network) with backoff until a deadline, which also aborts the attempt in flight; anything else
 * ends it at once. A call that ran out of time opens a circuit: for `coolDownMs` the following
 * calls fail at once without a request, so a batch of many documents waits for one deadline, not
 * one per document; the first call after the cool-down tries again (and closes it on success).
 */
import type { BackoffPolicy } from '../util/backoff';
import { nextDelayMs, sleep } from '../util/backoff';
import { systemClock, type Clock } from '../util/clock';
import { cosmosRetryAfterMs, isRetriableCosmosFailure } from './errors';

export interface BoundedRetryOptions {
  /** Time one call may take, attempts and waits included. @defaultValue 10_000 */
  deadlineMs?: number;
  /** Waits between attempts (`retries` is ignored: the deadline bounds them). */
  backoff?: BackoffPolicy;
  /** How long calls fail at once after one ran out of time. @defaultValue 30_000 */
  coolDownMs?: number;
  clock?: Clock;
  random?: () => number;
}

const BOUNDED_RETRY_DEFAULTS = Object.freeze({
  deadlineMs: 10_000,
  coolDownMs: 30_000,
  backoff: Object.freeze({ retries: Infinity, initialDelayMs: 100, maxDelayMs: 2_000, multiplier: 2, jitter: 0.2 }),
});

/** Why a call gave up: refused (not retriable), out of time, or skipped while the circuit is open. */
export const GIVE_UP_CAUSES = ['rejected', 'timeout', 'circuit-open'] as const;
export type GiveUpCause = (typeof GIVE_UP_CAUSES)[number];

export type BoundedOutcome<T> =
  | { readonly ok: true; readonly value: T; readonly attempts: number }
  | { readonly ok: false; readonly cause: GiveUpCause; readonly error: unknown; readonly attempts: number; readonly elapsedMs: number };

export class CircuitOpenError extends Error {
  constructor(readonly untilMs: number) {
    super(`not attempted: an earlier write ran out of time; writes resume at ${new Date(untilMs).toISOString()}`);
    this.name = 'CircuitOpenError';
  }
}

export class BoundedRetry {
  private readonly deadlineMs: number;
  private readonly coolDownMs: number;
  private readonly backoff: BackoffPolicy;
  private readonly clock: Clock;
  private readonly random: () => number;
  private openUntil = 0;

  constructor(options: BoundedRetryOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? BOUNDED_RETRY_DEFAULTS.deadlineMs;
    this.coolDownMs = options.coolDownMs ?? BOUNDED_RETRY_DEFAULTS.coolDownMs;
    this.backoff = options.backoff ?? BOUNDED_RETRY_DEFAULTS.backoff;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
  }

  /** True while calls fail at once. */
  get open(): boolean {
    return this.clock.now() < this.openUntil;
  }

  /** Runs `attempt` until it succeeds, fails for good, or the deadline passes; never throws. */
  async run<T>(
    attempt: (signal: AbortSignal) => Promise<T>,
    retriable: (err: unknown) => boolean = isRetriableCosmosFailure,
  ): Promise<BoundedOutcome<T>> {
    const started = this.clock.now();
    if (started < this.openUntil)
      return { ok: false, cause: 'circuit-open', error: new CircuitOpenError(this.openUntil), attempts: 0, elapsedMs: 0 };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`gave up after ${this.deadlineMs} ms`)), this.deadlineMs);
    timer.unref?.();
    let attempts = 0;
    let last: unknown;
    try {
      for (;;) {
        attempts++;
        try {
          const value = await attempt(deadline.signal);
          this.openUntil = 0;
          return { ok: true, value, attempts };
        } catch (err) {
          if (!deadline.signal.aborted || last === undefined) last = err;
          if (!deadline.signal.aborted && !retriable(err))
            return { ok: false, cause: 'rejected', error: err, attempts, elapsedMs: this.clock.now() - started };
        }
        if (!deadline.signal.aborted) {
          await sleep(nextDelayMs(this.backoff, attempts - 1, cosmosRetryAfterMs(last), this.random), deadline.signal).catch(
            () => undefined,
          );
        }
        if (deadline.signal.aborted) {
          this.openUntil = this.clock.now() + this.coolDownMs;
          return { ok: false, cause: 'timeout', error: last, attempts, elapsedMs: this.clock.now() - started };
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

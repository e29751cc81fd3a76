/**
 * Wait between acquire attempts while a subscription lock is held elsewhere: capped exponential
 * backoff with full jitter. A fixed short interval made every waiter (opstream instances and the
 * frontend) retry in step; under CPU saturation that retry storm slowed the holder itself and lock
 * waits grew from milliseconds to seconds. Full jitter spreads the waiters out and lets the load
 * level off instead of collapsing.
 */
import { nextDelayMs, type BackoffPolicy } from '../util/backoff';

/** Never retry at once: a zero wait would re-send the create in the same turn and get another 409. */
export const MIN_ACQUIRE_RETRY_DELAY_MS = 1;

export interface AcquireBackoff {
  /** Ceiling of the first wait; each further attempt doubles it. */
  acquireRetryBaseMs: number;
  /** Ceiling of any single wait. */
  acquireRetryMaxMs: number;
}

/**
 * Wait before retry number `attempt` (0-based): uniform over (0, min(max, base·2^attempt)], at
 * least MIN_ACQUIRE_RETRY_DELAY_MS. `random` returns values in [0, 1) and is injectable for tests.
 */
export function acquireRetryDelayMs(backoff: AcquireBackoff, attempt: number, random: () => number): number {
  const policy: BackoffPolicy = {
    retries: Infinity,
    initialDelayMs: backoff.acquireRetryBaseMs,
    maxDelayMs: backoff.acquireRetryMaxMs,
    multiplier: 2,
    jitter: 1, // full jitter
  };
  return Math.max(MIN_ACQUIRE_RETRY_DELAY_MS, nextDelayMs(policy, attempt, undefined, random));
}

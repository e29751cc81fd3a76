import { nextDelayMs, type BackoffPolicy } from '../../util/backoff';
import type { FailureKind } from './failure';

/**
 * How a throwing item is retried, as data (like client-go's rate limiters and BullMQ's backoffs):
 * the delay grows with consecutive throws of any kind, and only `counted` throws use up
 * `maxAttempts`, so an outage of a dependency fails nothing while a defect fails in bounded time.
 */
export interface RetryPolicy {
  /** Consecutive counted throws after which the item fails. */
  maxAttempts: number;
  backoff: BackoffPolicy;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 8,
  backoff: { retries: Infinity, initialDelayMs: 200, maxDelayMs: 30_000, multiplier: 2, jitter: 0.2 },
});

/** An item's failure history since its last handling that did not throw. */
export interface FailureCount {
  /** Counted throws in a row (towards `maxAttempts`). */
  attempts: number;
  /** Throws of any kind in a row (paces the backoff). */
  throws: number;
}

export const NO_FAILURES: Readonly<FailureCount> = Object.freeze({ attempts: 0, throws: 0 });

export type RetryDecision = { retry: true; afterMs: number; count: FailureCount } | { retry: false; count: FailureCount };

/**
 * The longest a dependency's `Retry-After` parks an item: a wait asked for beyond it (a day, a
 * month) is taken as this, so that the operation's deadline is looked at within the hour.
 */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * What one more throw of `kind` means for an item that has failed `count` times in a row; a wait the
 * dependency asked for (`retryAfterMs`) parks it at least that long (up to MAX_RETRY_AFTER_MS),
 * without holding a worker.
 */
export function afterThrow(
  policy: RetryPolicy,
  count: FailureCount,
  kind: FailureKind,
  random?: () => number,
  retryAfterMs?: number,
): RetryDecision {
  const next: FailureCount = { attempts: count.attempts + (kind === 'retriable' ? 0 : 1), throws: count.throws + 1 };
  if (kind === 'terminal' || next.attempts >= policy.maxAttempts) return { retry: false, count: next };
  const asked =
    retryAfterMs !== undefined && Number.isFinite(retryAfterMs) ? Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER_MS) : undefined;
  return { retry: true, afterMs: nextDelayMs(policy.backoff, next.throws - 1, asked, random), count: next };
}

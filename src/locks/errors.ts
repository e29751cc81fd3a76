/** Errors of the subscription lock. Both are retriable: try the whole section again later. */
import { OpstreamError } from '../domain/errors';

/** acquire() timed out while someone else held the lock (or Cosmos kept failing). */
export class LockNotAcquiredError extends OpstreamError {
  readonly retriable = true;
  constructor(
    readonly lockId: string,
    readonly timeoutMs: number,
    cause?: unknown,
  ) {
    super(`subscription lock ${lockId} not acquired within ${timeoutMs} ms (held by another owner)`, {
      cause,
      context: { lockId, timeoutMs },
    });
  }
}

export type LockLossReason =
  /** Renewal answered 412: the document was replaced by someone else. */
  | 'stolen'
  /** Renewal answered 404: the document was deleted or expired. */
  | 'gone'
  /** Renewals kept failing until the lock's TTL had surely passed. */
  | 'expired';

/** The lock was lost while held: the critical section must stop (its signal fired with this). */
export class LockLostError extends OpstreamError {
  readonly retriable = true;
  constructor(
    readonly lockId: string,
    readonly reason: LockLossReason,
    cause?: unknown,
  ) {
    super(`subscription lock ${lockId} lost (${reason})`, { cause, context: { lockId, reason } });
  }
}

export function isLockLostError(err: unknown): err is LockLostError {
  return err instanceof LockLostError;
}

export function isLockNotAcquiredError(err: unknown): err is LockNotAcquiredError {
  return err instanceof LockNotAcquiredError;
}

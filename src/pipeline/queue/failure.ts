/**
 * How the queue treats a handling that threw:
 * - `retriable`: a dependency is down or throttling (Clusters Service, Cosmos, ARM): retried with
 *   backoff for as long as it lasts, never counted, never dead-lettered (the deadline ends it);
 * - `terminal`: no retry can fix it (`TerminalError`): failed at once, dead-lettered;
 * - `counted`: anything else (a defect, an unexpected answer): retried with backoff, and failed after
 *   `maxAttempts` such throws in a row.
 */
export type FailureKind = 'retriable' | 'terminal' | 'counted';

/** A failure as the caller classified it, with the wait its dependency asked for (a `Retry-After`), if any. */
export interface ClassifiedFailure {
  readonly kind: FailureKind;
  readonly retryAfterMs?: number;
}

/** Tells a handling's failure apart (the caller knows its errors; the queue only acts on the kind and the wait). */
export type ClassifyFailure = (err: unknown) => FailureKind | ClassifiedFailure;

/** A classification as the queue uses it, whichever form the classifier gave. */
export function classified(c: FailureKind | ClassifiedFailure): ClassifiedFailure {
  return typeof c === 'string' ? { kind: c } : c;
}

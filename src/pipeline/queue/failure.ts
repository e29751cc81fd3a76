/**
 * How the queue treats a handling that threw:
 * - `retriable`: a dependency is down or throttling (Clusters Service, Cosmos, ARM): retried with
 *   backoff for as long as it lasts, never counted, never dead-lettered (the deadline ends it);
 * - `terminal`: no retry can fix it (`TerminalError`): failed at once, dead-lettered;
 * - `counted`: anything else (a defect, an unexpected answer): retried with backoff, and failed after
 *   `maxAttempts` such throws in a row.
 */
export type FailureKind = 'retriable' | 'terminal' | 'counted';

/** Tells a handling's failure apart (the caller knows its errors; the queue only acts on the kind). */
export type ClassifyFailure = (err: unknown) => FailureKind;

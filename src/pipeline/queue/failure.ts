import { isCredentialRefused } from '../../clusters-service/errors';
import { cosmosStatus, isRetriableCosmosFailure } from '../../cosmos/errors';
import { isRetriable, isTerminalError } from '../../domain/errors';

/**
 * How the queue treats a handling that threw:
 * - `retriable`: a dependency is down or throttling (Clusters Service, Cosmos, ARM): retried with
 *   backoff for as long as it lasts, never counted, never dead-lettered (the deadline ends it);
 * - `terminal`: no retry can fix it (`TerminalError`): failed at once, dead-lettered;
 * - `counted`: anything else (a defect, an unexpected answer): retried with backoff, and failed after
 *   `maxAttempts` such throws in a row.
 */
export type FailureKind = 'retriable' | 'terminal' | 'counted';

export function classifyFailure(err: unknown): FailureKind {
  if (isTerminalError(err)) return 'terminal';
  // A refused credential (CS 401/403) is opstream's to fix, not the operation's: wait it out like an outage.
  if (isRetriable(err) || isCredentialRefused(err) || (cosmosStatus(err) !== undefined && isRetriableCosmosFailure(err)))
    return 'retriable';
  return 'counted';
}

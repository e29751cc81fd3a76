import { ClustersServiceHttpError, isCredentialRefused } from '../clusters-service';
import { cosmosStatus, isRetriableCosmosFailure } from '../cosmos/errors';
import { isRetriable, isTerminalError } from '../domain/errors';
import type { ClassifiedFailure } from '../pipeline/queue/failure';

/**
 * How the pipeline's queue treats what a handling threw (see FailureKind): the errors of every layer
 * it calls, and the wait Clusters Service asked for (a Retry-After past what the client waits in place).
 */
export function classifyFailure(err: unknown): ClassifiedFailure {
  if (isTerminalError(err)) return { kind: 'terminal' };
  // A refused credential (CS 401/403) is opstream's to fix, not the operation's: wait it out like an outage.
  if (isRetriable(err) || isCredentialRefused(err) || (cosmosStatus(err) !== undefined && isRetriableCosmosFailure(err))) {
    const retryAfterMs = err instanceof ClustersServiceHttpError ? err.retryAfterMs : undefined;
    return retryAfterMs === undefined ? { kind: 'retriable' } : { kind: 'retriable', retryAfterMs };
  }
  return { kind: 'counted' };
}

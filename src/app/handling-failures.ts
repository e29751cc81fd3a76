import { isCredentialRefused } from '../clusters-service';
import { cosmosStatus, isRetriableCosmosFailure } from '../cosmos/errors';
import { isRetriable, isTerminalError } from '../domain/errors';
import type { FailureKind } from '../pipeline/queue/failure';

/** How the pipeline's queue treats what a handling threw (see FailureKind): the errors of every layer it calls. */
export function classifyFailure(err: unknown): FailureKind {
  if (isTerminalError(err)) return 'terminal';
  // A refused credential (CS 401/403) is opstream's to fix, not the operation's: wait it out like an outage.
  if (isRetriable(err) || isCredentialRefused(err) || (cosmosStatus(err) !== undefined && isRetriableCosmosFailure(err)))
    return 'retriable';
  return 'counted';
}

import {
  ended,
  isClustersServiceError,
  isCredentialRefused,
  isNotFound,
  isOutcomeUnknown,
  type Operation,
  type Outcome,
  type ProcessorKit,
  type Stored,
} from '../../src/kit';

/**
 * A dispatch call Clusters Service refused for good (404, or a 4xx that retrying cannot fix):
 * the operation fails with CS's reason. Anything else is not settled here (undefined): the caller
 * rethrows it and the queue retries with backoff — a 401/403 (opstream's credential) and an
 * unreadable answer included.
 */
export async function failOnPermanentRefusal(kit: ProcessorKit, op: Stored<Operation>, err: unknown): Promise<Outcome | undefined> {
  // An answer that could not be read says nothing about the request; nor does a refused credential.
  if (isOutcomeUnknown(err) || isCredentialRefused(err)) return undefined;
  if (!isNotFound(err) && !(isClustersServiceError(err) && !err.retriable)) return undefined;
  const code = isNotFound(err) ? 'NotFound' : 'InvalidRequestContent';
  await kit.writeBack(op, { status: 'Failed', error: { code, message: (err as Error).message } });
  return ended('Failed');
}

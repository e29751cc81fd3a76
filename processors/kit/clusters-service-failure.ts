import { isClustersServiceError, isNotFound } from '../clusters-service';
import type { Operation, Stored } from '../domain/types';
import type { PipelineContext } from './context';
import { Outcome, again } from './outcome';
import { transition } from './transition';

/**
 * A dispatch call Clusters Service refused for good (404, or a 4xx that retrying cannot fix):
 * the operation fails with CS's reason. Anything else is not settled here (undefined): the caller
 * rethrows it and the scheduler retries with backoff.
 */
export async function failOnPermanentRefusal(ctx: PipelineContext, op: Stored<Operation>, err: unknown): Promise<Outcome | undefined> {
  if (!isNotFound(err) && !(isClustersServiceError(err) && !err.retriable)) return undefined;
  const code = isNotFound(err) ? 'NotFound' : 'InvalidRequestContent';
  await transition(ctx, op, { status: 'Failed', error: { code, message: (err as Error).message } });
  return again(0, 'Failed: notify');
}

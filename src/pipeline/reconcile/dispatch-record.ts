import type { NonTerminalStatus } from '../../domain/statuses';
import type { Operation, Stored } from '../../domain/types';
import { correlationOf } from '../../tracing';
import type { Handling, PipelineServices } from '../context';
import { PIPELINE_EVENTS } from '../events';

/**
 * Records on the Operation the Clusters Service href a dispatch got (after the Resource got it), and
 * moves it to `status` — what its request is while Clusters Service works (a Create: Provisioning) —
 * in the same write, so that ARM sees the work begin without a call of its own. The move is reported
 * as a write-back's is (`pipeline.operation.transitioned`). Refused once the handling is fenced. The
 * Operation as written (undefined when it is gone).
 */
export async function recordDispatched(
  ctx: Pick<PipelineServices, 'operations' | 'events'>,
  handling: Pick<Handling, 'fence' | 'onStatus'>,
  op: Stored<Operation>,
  internalId: string,
  status?: NonTerminalStatus,
): Promise<Stored<Operation> | undefined> {
  handling.fence?.throwIfAborted();
  const result = await ctx.operations.setInternalId(op.partitionKey, op.id, internalId, { startFrom: op, ...(status ? { status } : {}) });
  const written = result.outcome === 'not-found' ? undefined : result.document;
  if (!status || result.outcome !== 'updated' || result.document.status !== status || op.status === status) return written;
  handling.onStatus?.(status);
  ctx.events.emit({
    type: PIPELINE_EVENTS.operationTransitioned,
    operation: {
      operationId: op.id,
      subscriptionId: op.partitionKey,
      resourceId: op.externalId,
      request: op.request,
      status,
      ...correlationOf(op),
    },
    previousStatus: op.status,
  });
  return written;
}

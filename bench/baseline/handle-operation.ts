/**
 * What one pass does with one operation (serially, in the list order of the last scan):
 * an Accepted Create without CS id → create dispatch; an Accepted Update → PATCH; a Delete not yet
 * sent → DELETE; anything else → one CS status call and the write-back under the lock. One CS
 * action per operation per pass: a dispatched operation is followed from the next pass on.
 */
import { isTerminal } from '../../src/domain/statuses';
import { isNodePoolResourceId } from './resource-kind';
import { DONE, type BaselineContext, type StepResult, type StoredOperation } from './context';
import { dispatchClusterCreate, dispatchNodePoolCreate } from './dispatch-create';
import { dispatchDelete } from './dispatch-delete';
import { dispatchUpdate } from './dispatch-update';
import { follow } from './follow';

export async function handleOperation(ctx: BaselineContext, op: StoredOperation): Promise<StepResult> {
  if (isTerminal(op.status)) return DONE;
  switch (op.request) {
    case 'Create':
      if (!op.internalId) return isNodePoolResourceId(op.externalId) ? dispatchNodePoolCreate(ctx, op) : dispatchClusterCreate(ctx, op);
      break;
    case 'Update':
      if (op.status === 'Accepted') return dispatchUpdate(ctx, op);
      break;
    case 'Delete':
      if (!ctx.deletesSent.has(op.id)) return dispatchDelete(ctx, op);
      break;
    default:
      // RequestCredential / RevokeCredentials are not part of this backend.
      return { kind: 'keep', operation: op };
  }
  const href = op.internalId;
  if (!href) return { kind: 'keep', operation: op };
  const result = await follow(ctx, op, href);
  if (result.kind === 'keep' && isTerminal(result.operation.status)) return DONE;
  return result;
}

/**
 * The baseline's write-back, under the subscription lock, once per operation per pass (as the
 * 2024 ARO-HCP scanner did: lock, read, write what changed, release — even when nothing changed).
 * The lock is held around the Cosmos read-modify-writes only, never around a CS call.
 *
 * - An operation whose Resource is gone or names another active operation was superseded (a
 *   Delete took over): it becomes Canceled. A Delete is never superseded.
 * - `set`: Operation status (+ error), then the Resource's provisioningState by the write-back rule.
 * - `deleted` (404 on a Delete): the Resource document is deleted, the Operation Succeeded.
 * - `keep`: the Operation is read and left as it is.
 */
import { resourceDocumentId } from '../../src/domain/ids';
import { isTerminal } from '../../src/domain/statuses';
import type { ArmError, OperationStatus } from '../../src/domain/types';
import type { BaselineContext, StoredOperation } from './context';

const SUPERSEDED: ArmError = Object.freeze({ code: 'Canceled', message: 'This operation was superseded by another' });

export type WriteBackDecision =
  | { readonly kind: 'keep' }
  | { readonly kind: 'set'; readonly status: OperationStatus; readonly error?: ArmError }
  | { readonly kind: 'deleted' };

/** Applies the decision under the lock; returns the Operation as stored afterwards (undefined if gone). */
export async function writeBack(
  ctx: BaselineContext,
  op: StoredOperation,
  decision: WriteBackDecision,
): Promise<StoredOperation | undefined> {
  const pk = op.partitionKey;
  const resourceId = resourceDocumentId(op.externalId);
  const written = await ctx.locks.withSubscriptionLock(pk, async (signal) => {
    const resource = await ctx.resources.read(pk, resourceId);
    signal.throwIfAborted();
    if (op.request !== 'Delete' && resource?.activeOperationId !== op.id) {
      const r = await ctx.operations.setStatus(pk, op.id, { status: 'Canceled', error: SUPERSEDED });
      return r.outcome === 'not-found' ? undefined : r.document;
    }
    switch (decision.kind) {
      case 'keep':
        return ctx.operations.read(pk, op.id);
      case 'set': {
        const r = await ctx.operations.setStatus(pk, op.id, {
          status: decision.status,
          ...(decision.error ? { error: decision.error } : {}),
        });
        signal.throwIfAborted();
        await ctx.resources.writeBack(pk, resourceId, op.id, { provisioningState: decision.status });
        return r.outcome === 'not-found' ? undefined : r.document;
      }
      case 'deleted': {
        if (resource && resource.activeOperationId === op.id) await ctx.resources.delete(pk, resourceId, resource._etag);
        signal.throwIfAborted();
        const r = await ctx.operations.setStatus(pk, op.id, { status: 'Succeeded', error: null });
        return r.outcome === 'not-found' ? undefined : r.document;
      }
    }
  });
  if (written && isTerminal(written.status)) await ctx.notifications.notify(written);
  return written;
}

/** Records the CS href: on the Resource first, then on the Operation, so a crash in between is repaired from the Resource. */
export async function recordInternalId(ctx: BaselineContext, op: StoredOperation, href: string): Promise<StoredOperation | undefined> {
  const pk = op.partitionKey;
  return ctx.locks.withSubscriptionLock(pk, async (signal) => {
    await ctx.resources.setInternalId(pk, resourceDocumentId(op.externalId), href);
    signal.throwIfAborted();
    const r = await ctx.operations.setInternalId(pk, op.id, href);
    return r.outcome === 'not-found' ? undefined : r.document;
  });
}

/** Persists the CS id chosen before calling CS create. */
export async function recordPendingInternalId(ctx: BaselineContext, op: StoredOperation, href: string): Promise<void> {
  const pk = op.partitionKey;
  await ctx.locks.withSubscriptionLock(pk, async () => {
    await ctx.resources.setPendingInternalId(pk, resourceDocumentId(op.externalId), href);
  });
}

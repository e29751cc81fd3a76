import { resourceDocumentId } from '../domain/ids';
import { isTerminal } from '../domain/statuses';
import { isLockLostError } from '../locks';
import type { ArmError, Operation, OperationStatus, Resource, Stored } from '../domain/types';
import type { PipelineContext } from './context';
import { newClaim } from './notification-claim';

/**
 * The write-back, under the subscription lock and only around the Cosmos read-modify-writes:
 * the Resource first (provisioningState, internalId, activeOperationId cleared at terminal — only
 * while it is this operation's), then the Operation (status, error, lastTransitionTime — only when
 * changed). Resource first, so a crash in between leaves a non-terminal operation that the next
 * run repairs from the Resource, never a terminal operation over a stale Resource.
 */
export interface TransitionChange {
  status: OperationStatus;
  /** Recorded on the operation; `null` clears a previous error. */
  error?: ArmError | null;
  /** Also record the CS href on the Resource. */
  internalId?: string;
  /** The resource is gone from Clusters Service: delete its document instead of writing it back. */
  deleteResource?: boolean;
  /** Leave the Resource alone (superseded operations). */
  skipResource?: boolean;
}

export type TransitionResult = { written: boolean; operation?: Stored<Operation> };

/**
 * `op` (and `resource`, when the caller has it) as read at the start of this handling: the writes
 * start from them rather than reading again (If-Match still guards them).
 */
export async function transition(ctx: PipelineContext, op: Stored<Operation>, change: TransitionChange, resource?: Stored<Resource>): Promise<TransitionResult> {
  const pk = op.partitionKey;
  const started = ctx.clock.now();
  // The Resource the handling found (possibly by its resourceId), else looked up the same way.
  const resourceId = resource?.id ?? (change.skipResource ? '' : ((await ctx.resources.findFor(pk, op.externalId))?.id ?? resourceDocumentId(op.externalId)));
  return ctx.locks
    .withSubscriptionLock(pk, (signal) => writeBack(ctx, op, change, resourceId, started, fenced(ctx, signal), resource), { signal: ctx.fence })
    .catch((err: unknown) => {
      if (isLockLostError(err)) ctx.metrics.lockLosses.inc();
      throw err;
    });
}

async function writeBack(
  ctx: PipelineContext,
  op: Stored<Operation>,
  change: TransitionChange,
  resourceId: string,
  started: number,
  signal: AbortSignal,
  resource: Stored<Resource> | undefined,
): Promise<TransitionResult> {
  const pk = op.partitionKey;
  ctx.metrics.lockWaitSeconds.observe((ctx.clock.now() - started) / 1000);
  signal.throwIfAborted();
  if (change.deleteResource) {
    await ctx.resources.delete(pk, resourceId);
  } else if (!change.skipResource) {
    const startFrom = resource?.id === resourceId ? resource : undefined;
    const wb = await ctx.resources.writeBack(pk, resourceId, op.id, { provisioningState: change.status, internalId: change.internalId }, { startFrom });
    if ('document' in wb && wb.outcome === 'updated') ctx.ownWrites.record(wb.document);
  }
  signal.throwIfAborted();
  // The instance that ends the operation claims its ARM notification in the same write.
  const notificationClaim = isTerminal(change.status) ? newClaim(ctx) : undefined;
  const result = await ctx.operations.setStatus(pk, op.id, { status: change.status, error: change.error, notificationClaim }, { startFrom: op });
  if (result.outcome !== 'updated') return { written: false };
  ctx.ownWrites.record(result.document);
  ctx.metrics.transitions.inc({ status: change.status });
  ctx.taps.publish('transitions', {
    operationId: op.id,
    subscriptionId: pk,
    resourceId: op.externalId,
    request: op.request,
    previousStatus: op.status,
    status: change.status,
    ...(change.error ? { error: change.error } : {}),
  });
  ctx.logger.info(`operation ${op.request} ${op.status} → ${change.status}`, {
    operationId: op.id,
    subscriptionId: pk,
    resourceId: op.externalId,
    status: change.status,
    ...(change.error ? { errorCode: change.error.code } : {}),
  });
  return { written: true, operation: result.document };
}

/** The lock's signal, joined by the handling's fence: a write stops when either is lost. */
export function fenced(ctx: PipelineContext, lockSignal: AbortSignal): AbortSignal {
  return ctx.fence ? AbortSignal.any([lockSignal, ctx.fence]) : lockSignal;
}

/** A terminal transition wants the notification sent right away: the caller re-runs at once. */
export function isFinal(change: TransitionChange): boolean {
  return isTerminal(change.status);
}

import { resourceDocumentId } from '../../domain/ids';
import { isTerminal } from '../../domain/statuses';
import { isLockLostError } from '../../locks';
import type { ArmError, Operation, OperationStatus, Resource, Stored } from '../../domain/types';
import type { Handling, PipelineServices } from '../context';
import { PIPELINE_EVENTS } from '../events';
import { newClaim } from './notification-claim';
import { context } from '@opentelemetry/api';
import { ATTR, correlationOf, failSpan, inSpan, tracer, withSpan } from '../../tracing';

/**
 * The write-back, under the subscription lock and only around the Cosmos read-modify-writes (a
 * write-back the handling's copies show would change nothing is skipped, lock and all):
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
  /** With a Succeeded status: what CS holds of the fields the processor sets, kept on the Resource for the next operation. */
  observed?: object;
  /** The resource is gone from Clusters Service: delete its document instead of writing it back. */
  deleteResource?: boolean;
  /** Leave the Resource alone (superseded operations). */
  skipResource?: boolean;
}

export type TransitionResult = { written: boolean; operation?: Stored<Operation> };

/** The services a write-back uses; the handling it runs for brings its fence and callbacks. */
export type WriteBackDeps = Pick<PipelineServices, 'operations' | 'resources' | 'locks' | 'events' | 'clock' | 'settings' | 'instanceId'>;

/** What a write-back needs of its handling. */
export type WriteBackHandling = Pick<Handling, 'fence' | 'onStatus' | 'onLockWait'>;

/**
 * `op` (and `resource`, when the caller has it) as read at the start of this handling: the writes
 * start from them rather than reading again (If-Match still guards them).
 */
export function writeBack(
  ctx: WriteBackDeps,
  handling: WriteBackHandling,
  op: Stored<Operation>,
  change: TransitionChange,
  resource?: Stored<Resource>,
): Promise<TransitionResult> {
  // A follow's look that finds CS where the documents already say it is: no lock, no read, no write.
  if (changesNothing(op, change, resource)) return Promise.resolve({ written: false });
  const attributes = { [ATTR.status]: change.status, ...(change.error ? { [ATTR.errorType]: change.error.code } : {}) };
  return inSpan('write-back', { attributes }, async (span) => {
    const pk = op.partitionKey;
    // The Resource the handling found (possibly by its resourceId), else looked up the same way.
    const resourceId =
      resource?.id ??
      (change.skipResource ? '' : ((await ctx.resources.findFor(pk, op.externalId))?.id ?? resourceDocumentId(op.externalId)));
    const result = await underLock(ctx, handling, pk, (signal) => writeUnderLock(ctx, op, change, resourceId, signal, resource));
    span.setAttribute('opstream.write_back.written', result.written);
    if (result.written) handling.onStatus?.(change.status);
    return result;
  });
}

/**
 * The handling's Operation and Resource already say what `change` would write: the same non-terminal
 * status, no error to set or clear, no href to record. Trusting the copies is safe here: they are the
 * handling's own (read, written or brought, as KnownDocuments keeps them), the Resource is written
 * before the Operation, the frontend changes the Resource only with a new Operation (which drops the
 * copy), and a later writer only moves the operation on: a write that would change nothing in the
 * copies would change nothing in Cosmos, or would move it back. A terminal status is always written
 * (it carries the notification claim); without the Resource in hand the write-back reads it.
 */
function changesNothing(op: Stored<Operation>, change: TransitionChange, resource: Stored<Resource> | undefined): boolean {
  if (isTerminal(change.status) || change.status !== op.status || change.deleteResource || change.internalId !== undefined) return false;
  if (change.error != null || (change.error === null && op.error !== undefined)) return false;
  if (change.skipResource) return true;
  return resource?.activeOperationId === op.id && resource.provisioningState === change.status;
}

/**
 * Runs `fn` holding the subscription lock; its signal aborts when the lock is lost or the
 * handling is fenced. The wait is reported (`pipeline.lock.waited`), and so is a lost lock.
 */
export async function underLock<T>(
  ctx: Pick<WriteBackDeps, 'locks' | 'events' | 'clock'>,
  handling: Pick<Handling, 'fence' | 'onLockWait'>,
  partitionKey: string,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const started = ctx.clock.now();
  handling.onLockWait?.(true);
  let lockPending = true;
  const waited = (): void => {
    if (lockPending) handling.onLockWait?.(false);
    lockPending = false;
  };
  // The wait is a span of its own (its Cosmos lock attempts are its children); `fn` runs beside it.
  const holder = context.active();
  const waiting = tracer.startSpan('acquire subscription lock', { attributes: { [ATTR.subscriptionId]: partitionKey } }, holder);
  try {
    return await withSpan(waiting, () =>
      ctx.locks.withSubscriptionLock(
        partitionKey,
        (lockSignal) => {
          waited();
          const waitedMs = ctx.clock.now() - started;
          ctx.events.emit({ type: PIPELINE_EVENTS.lockWaited, waitedMs });
          waiting.setAttribute(ATTR.lockWaitMs, waitedMs);
          waiting.end();
          const signal = handling.fence ? AbortSignal.any([lockSignal, handling.fence]) : lockSignal;
          signal.throwIfAborted();
          return context.with(holder, () => fn(signal));
        },
        { signal: handling.fence },
      ),
    );
  } catch (err) {
    waited();
    if (isLockLostError(err)) ctx.events.emit({ type: PIPELINE_EVENTS.lockLost, subscriptionId: partitionKey });
    if (waiting.isRecording()) {
      failSpan(waiting, err);
      waiting.end();
    }
    throw err;
  }
}

async function writeUnderLock(
  ctx: WriteBackDeps,
  op: Stored<Operation>,
  change: TransitionChange,
  resourceId: string,
  signal: AbortSignal,
  resource: Stored<Resource> | undefined,
): Promise<TransitionResult> {
  const pk = op.partitionKey;
  if (change.deleteResource) {
    await ctx.resources.delete(pk, resourceId);
  } else if (!change.skipResource) {
    const startFrom = resource?.id === resourceId ? resource : undefined;
    await ctx.resources.writeBack(
      pk,
      resourceId,
      op.id,
      { provisioningState: change.status, internalId: change.internalId, clustersServiceState: change.observed },
      { startFrom },
    );
  }
  signal.throwIfAborted();
  // The instance that ends the operation claims its ARM notification in the same write.
  const notificationClaim = isTerminal(change.status) ? newClaim(ctx) : undefined;
  const result = await ctx.operations.setStatus(
    pk,
    op.id,
    { status: change.status, error: change.error, notificationClaim },
    { startFrom: op },
  );
  if (result.outcome !== 'updated') return { written: false };
  ctx.events.emit({
    type: PIPELINE_EVENTS.operationTransitioned,
    operation: {
      operationId: op.id,
      subscriptionId: pk,
      resourceId: op.externalId,
      request: op.request,
      status: change.status,
      ...correlationOf(op),
    },
    previousStatus: op.status,
    // As stored: cut to its bounds (see OperationsRepository.setStatus).
    ...(change.error ? { error: result.document.error ?? change.error } : {}),
  });
  return { written: true, operation: result.document };
}

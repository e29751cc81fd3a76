import { isLockNotAcquiredError } from '../locks/errors';
import type { ItemState } from './queue/keyed-scheduler';
import type { FollowState } from './reconcile/follow/schedule';
import type { OperationRef } from './reconcile/operation-reconciler';
import type { OperationState } from '../domain/types.generated';

export type { OperationState };

/**
 * What one instance is doing with one operation, as its ops server answers
 * `/api/operations/<id>` (schemas/operation-state.schema.json) for `opstream explain`: absent,
 * queued (due, waiting for a worker), being handled (and whether that handling waits for its
 * subscription lock), or parked until a time, and why: waiting on Clusters Service, backing off
 * after an error, waiting for the lock, the ARM notification, or something else its note names.
 * Pure: built from what the scheduler and the reconciler remember.
 */
export function operationState(args: {
  instance: string;
  operationId: string;
  now: number;
  item?: ItemState<OperationRef>;
  follow?: Readonly<FollowState>;
  lockWaitSince?: number;
}): OperationState {
  const { instance, operationId, now, item, follow } = args;
  const base = { instance, at: iso(now), operationId };
  if (!item) return { ...base, state: 'absent' };
  const ref = item.item;
  const last = item.last;
  const out: OperationState = {
    ...base,
    state: item.handlingSince !== undefined ? 'handling' : item.dueAt > now ? 'parked' : 'queued',
    request: ref.request,
    status: ref.status,
    resourceId: ref.resourceId,
    leaseToken: ref.leaseToken,
    consecutiveErrors: item.failures.throws,
    countedAttempts: item.failures.attempts,
  };
  if (out.state === 'handling') {
    out.handlingSince = iso(item.handlingSince as number);
    if (args.lockWaitSince !== undefined) out.waitingForLockSince = iso(args.lockWaitSince);
  } else {
    out.dueAt = iso(item.dueAt);
    if (out.state === 'queued' && item.keyBusy) out.behindSameResource = true;
  }
  if (last) {
    const error = last.error === undefined ? undefined : errorText(last.error);
    out.lastHandling = { at: iso(last.at), result: last.result, ...(last.note ? { note: last.note } : {}), ...(error ? { error } : {}) };
    if (out.state === 'parked') out.reason = reasonOf(last, follow);
  }
  if (follow?.watch || follow?.csState) {
    out.clustersService = {
      ...(follow.watch ? { href: follow.watch.href } : {}),
      ...(follow.csState ? { state: follow.csState } : {}),
      ...(follow.csStateSince !== undefined ? { stateSince: iso(follow.csStateSince) } : {}),
      ...(follow.lastDescription ? { description: follow.lastDescription } : {}),
      ...(follow.lastCheckAt !== undefined ? { lastCheckAt: iso(follow.lastCheckAt) } : {}),
    };
  }
  return out;
}

function reasonOf(
  last: NonNullable<ItemState<OperationRef>['last']>,
  follow: Readonly<FollowState> | undefined,
): NonNullable<OperationState['reason']> {
  if (last.result === 'retried') return isLockNotAcquiredError(last.error) ? 'lock' : 'error';
  const note = last.note ?? '';
  if (/^ARM notification|notification slots/.test(note)) return 'notification';
  if (follow?.watch || /Clusters Service|^CS /.test(note)) return 'clusters-service';
  return 'other';
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0].slice(0, 1024);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

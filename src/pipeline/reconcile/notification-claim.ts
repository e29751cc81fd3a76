import { claimHeldUntil } from '../../domain/document-time';
import type { NotificationClaim, Operation, Stored } from '../../domain/types';
import type { Handling, PipelineServices } from '../context';

/**
 * Who may notify ARM about a terminal operation. The instance that ended it claims the delivery in
 * the same write (see `transition`); any other instance that handles the operation meanwhile (its
 * lease moved and the old owner has not noticed yet) leaves the notification alone until the claim
 * lapses, so ARM is told once unless the claimant died between delivering and clearing.
 */
export type ClaimDecision =
  { kind: 'deliver'; op: Stored<Operation> } | { kind: 'held'; owner: string; untilMs: number } | { kind: 'gone' };

/** A claim of this instance's that will last `ctx.settings.notificationClaimMs` from now. */
export function newClaim(ctx: Pick<PipelineServices, 'instanceId' | 'clock' | 'settings'>): NotificationClaim {
  return { owner: ctx.instanceId, until: new Date(ctx.clock.now() + ctx.settings.notificationClaimMs).toISOString() };
}

/**
 * Delivers under a claim this instance already holds (with at least half its time left), else
 * claims it with If-Match; a live claim of another instance means waiting for it to lapse.
 */
export async function claimNotification(ctx: PipelineServices, handling: Handling, op: Stored<Operation>): Promise<ClaimDecision> {
  const now = ctx.clock.now();
  const held = op.notificationClaim;
  const untilMs = held ? claimHeldUntil(held.until, now, ctx.settings.notificationClaimMs) : 0;
  if (held?.owner === ctx.instanceId && untilMs - now >= ctx.settings.notificationClaimMs / 2) return { kind: 'deliver', op };
  if (held && held.owner !== ctx.instanceId && untilMs > now) return { kind: 'held', owner: held.owner, untilMs };
  handling.fence?.throwIfAborted();
  const result = await ctx.operations.claimNotification(op.partitionKey, op.id, newClaim(ctx), now, { startFrom: op });
  if (result.outcome === 'not-found') return { kind: 'gone' };
  const doc = result.document;
  if (result.outcome === 'updated') return { kind: 'deliver', op: doc };
  if (!doc.notificationUri) return { kind: 'gone' };
  const other = doc.notificationClaim;
  // `unchanged` only when another instance's claim is live (the mutator writes in every other case).
  return {
    kind: 'held',
    owner: other?.owner ?? 'another instance',
    untilMs: other ? claimHeldUntil(other.until, now, ctx.settings.notificationClaimMs) : now + ctx.settings.notificationClaimMs,
  };
}

/**
 * Runs `fn` (a delivery and the write that records it) while keeping this instance's claim alive:
 * every third of the claim it is extended, so a delivery that outlasts the claim (a slow ARM, a
 * clearing write retried through a Cosmos outage) is never taken for a dead deliverer's and sent
 * again by the instance that took the lease over. Only a claim whose holder died lapses.
 */
export async function holdingClaim<T>(ctx: PipelineServices, handling: Handling, op: Stored<Operation>, fn: () => Promise<T>): Promise<T> {
  const everyMs = Math.max(1, Math.floor(ctx.settings.notificationClaimMs / 3));
  let timer: unknown;
  let renewing: Promise<void> | undefined;
  let done = false;
  const schedule = (): void => {
    timer = ctx.clock.setTimeout(() => {
      renewing = renew().finally(() => {
        renewing = undefined;
        if (!done) schedule();
      });
    }, everyMs);
  };
  const renew = async (): Promise<void> => {
    try {
      const result = await ctx.operations.claimNotification(op.partitionKey, op.id, newClaim(ctx), ctx.clock.now());
      if (
        result.outcome === 'unchanged' &&
        result.document.notificationUri &&
        result.document.notificationClaim?.owner !== ctx.instanceId
      ) {
        handling.logger.warn('ARM notification claim taken by another instance while delivering', {
          owner: result.document.notificationClaim?.owner,
        });
      }
    } catch (err) {
      // The next renewal tries again; the worst case is the lapse this guards against.
      handling.logger.warn('renewing the ARM notification claim failed', { error: (err as Error).message });
    }
  };
  schedule();
  try {
    return await fn();
  } finally {
    done = true;
    ctx.clock.clearTimeout(timer);
    await renewing;
  }
}

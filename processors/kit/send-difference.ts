import { isConflict, pastTime, type OperationWork, type Outcome, type ProcessorKit } from '../../src/kit';
import { failOnPermanentRefusal } from './clusters-service-failure';
import type { UpdateCooldown } from './update-cooldown';

/** What became of a difference between the desired state and Clusters Service's. */
export type SendResult =
  /** Nothing differs: Clusters Service holds the desired state. */
  | { readonly kind: 'same' }
  /** The PATCH went out and Clusters Service took it. */
  | { readonly kind: 'sent' }
  /** Something differs, but the last PATCH went out less than the cooldown ago: look again after `afterMs`. */
  | { readonly kind: 'cooling'; readonly afterMs: number }
  /** Clusters Service refused the PATCH for now (409: the object is not ready). */
  | { readonly kind: 'busy' }
  /** Clusters Service refused it for good: the operation was failed with its reason. */
  | { readonly kind: 'refused'; readonly outcome: Outcome };

/**
 * Sends `patch` (the difference, or undefined when there is none) to Clusters Service through `send`.
 * A re-send (`resendAfter`: when the last PATCH is known to have gone out, from the documents) waits
 * out the cooldown; a dispatch sends at once. A refusal that retrying cannot fix fails the operation;
 * anything else unexpected is thrown, for the queue to retry.
 */
export async function sendDifference<P>(
  work: OperationWork,
  kit: ProcessorKit,
  target: { readonly href: string; readonly patch: P | undefined; readonly cooldown: UpdateCooldown; readonly resendAfter?: number },
  send: (patch: P) => Promise<unknown>,
): Promise<SendResult> {
  const { href, patch, cooldown } = target;
  if (patch === undefined) return { kind: 'same' };
  const afterMs = target.resendAfter === undefined ? 0 : cooldown.remainingMs(href, target.resendAfter);
  if (afterMs > 0) return { kind: 'cooling', afterMs };
  try {
    await send(patch);
  } catch (err) {
    if (isConflict(err)) return { kind: 'busy' };
    const outcome = await failOnPermanentRefusal(kit, work.op, err);
    if (outcome) return { kind: 'refused', outcome };
    throw err;
  }
  cooldown.record(href);
  work.logger.info('sent Clusters Service the difference from the desired state', { fields: Object.keys(patch as object) });
  return { kind: 'sent' };
}

/** When an Updating operation's dispatch PATCH went out: it wrote Updating right after it (`lastTransitionTime`). */
export function lastSentAt(work: OperationWork, kit: ProcessorKit): number {
  const now = kit.clock.now();
  return pastTime(work.op.lastTransitionTime, now, work.op);
}

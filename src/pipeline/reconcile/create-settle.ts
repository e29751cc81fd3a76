import { pastTime } from '../../domain/document-time';
import type { Operation, Resource } from '../../domain/types';
import type { ProcessorKit } from './processor';

/**
 * Milliseconds a Delete must still wait before deciding what Clusters Service holds, because a
 * create sent just before the Delete (its answer lost or timed out) may still land: only while the
 * Resource never recorded its CS id but a create may have gone out. 0 when nothing can be in flight.
 */
export function createSettleRemainingMs(
  kit: Pick<ProcessorKit, 'clock' | 'settings'>,
  deleteOp: Operation,
  resource: Resource,
  createMayHaveGoneOut: boolean,
): number {
  if (resource.internalId || deleteOp.internalId || !createMayHaveGoneOut) return 0;
  const settledAt = pastTime(deleteOp.startTime, kit.clock.now(), deleteOp) + kit.settings.createSettleMs;
  return Math.max(0, settledAt - kit.clock.now());
}

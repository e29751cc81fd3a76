import type { ProcessorState } from '@opstream/changefeed';
import type { ActiveOperation, OperationPipeline } from '../../pipeline/operation-pipeline';
import type { LiveSummary } from '../live-summary';
import type { OperationEvents } from '../operation-events';

export interface SummaryDeps {
  instanceName: string;
  live: LiveSummary;
  pipeline: OperationPipeline;
  leaseState: () => Promise<ProcessorState>;
  /** The Operation events publisher, once started (after the summary is first served). */
  operationEvents: () => OperationEvents | undefined;
}

/** What `/api/summary` (and the live page) answers: the instance, its queue, its active operations and leases. */
export function instanceSummary(deps: SummaryDeps): () => Promise<Record<string, unknown>> {
  return async () => {
    const state = await deps.leaseState();
    const events = deps.operationEvents();
    return {
      instance: deps.instanceName,
      ...deps.live.snapshot(),
      scheduled: deps.pipeline.scheduled().length,
      // Per operation here, not in /metrics (whose series stay bounded: oldest age per kind, counts per age).
      activeOperations: activeOperationsDetail(deps.pipeline.activeOperations(), Date.now()),
      ...(events ? { operationEvents: events.stats() } : {}),
      leases: state.leases.map((l) => ({ leaseToken: l.leaseToken, owner: l.owner, lag: l.lag ?? null, continuation: l.continuation })),
    };
  };
}

/** Operations listed one by one in /api/summary, oldest first; the rest are counted. */
const ACTIVE_OPERATIONS_LISTED = 100;

export function activeOperationsDetail(
  active: readonly ActiveOperation[],
  now: number,
): { count: number; oldest: Array<Record<string, string | number>> } {
  const oldest = [...active]
    .sort((a, b) => a.startTimeMs - b.startTimeMs)
    .slice(0, ACTIVE_OPERATIONS_LISTED)
    .map((o) => ({
      operationId: o.operationId,
      resourceType: o.resourceType,
      request: o.request,
      status: o.status,
      startTime: Number.isFinite(o.startTimeMs) ? new Date(o.startTimeMs).toISOString() : 'unknown',
      ageSeconds: Number.isFinite(o.startTimeMs) ? Math.max(0, Math.round((now - o.startTimeMs) / 1000)) : 0,
    }));
  return { count: active.length, oldest };
}

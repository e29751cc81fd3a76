import { mapClusterStatus, mapNodePoolStatus, type CsObservation, type StatusDecision } from '../domain/cs-mapping';
import type { CsClusterStatus, CsNodePoolStatus } from '../schemas/types.generated';
import { parseCsHref } from '../domain/ids';
import type { PipelineContext } from './context';
import { nextFollow } from './follow-schedule';
import type { OperationWork } from './operation-processor';
import { Outcome, again } from './outcome';
import { transition } from './transition';

/**
 * The status follow shared by every processor that waits on Clusters Service: one status call,
 * the mapping decision (domain/cs-mapping), the write-back, and when to look again (adaptive:
 * soon after a change, doubling to the configured ceiling while nothing moves).
 */
export async function followCluster(
  work: OperationWork,
  ctx: PipelineContext,
  href: string,
  observed?: CsObservation<CsClusterStatus>,
): Promise<Outcome> {
  const { clusterId } = parseCsHref(href);
  const observation = observed ?? (await ctx.cs.observeClusterStatus(clusterId));
  const input = { request: work.op.request, current: work.op.status, observation };
  let decision = mapClusterStatus(input);
  if (decision.kind === 'need-inflight-checks') {
    decision = mapClusterStatus({ ...input, inflightChecks: await ctx.cs.getInflightChecks(clusterId) });
  }
  const state = observation.found ? observation.status.state : 'gone';
  const description = observation.found ? observation.status.description || observation.status.state : 'not found';
  return applyDecision(work, ctx, decision, state, description);
}

export async function followNodePool(
  work: OperationWork,
  ctx: PipelineContext,
  href: string,
  observed?: CsObservation<CsNodePoolStatus>,
): Promise<Outcome> {
  const { clusterId, nodePoolId } = parseCsHref(href);
  if (!nodePoolId) throw new Error(`${href} is not a node pool href`);
  const observation = observed ?? (await ctx.cs.observeNodePoolStatus(clusterId, nodePoolId));
  const decision = mapNodePoolStatus({ request: work.op.request, current: work.op.status, observation });
  const state = observation.found ? observation.status.state.node_pool_state_value : 'gone';
  const description = observation.found ? observation.status.message || state : 'not found';
  return applyDecision(work, ctx, decision, state, description);
}

export async function applyDecision(
  work: OperationWork,
  ctx: PipelineContext,
  decision: StatusDecision,
  state: string,
  description: string,
): Promise<Outcome> {
  const now = ctx.clock.now();
  const previousCheck = work.follow.lastCheckAt;
  // Back to quick checks only when what we write changes (Accepted → Provisioning …), not on every
  // intermediate CS state (pending → validating): that keeps Clusters Service calls per operation low.
  const progress = decision.kind === 'set' ? decision.status : decision.kind === 'keep' ? work.op.status : decision.kind;
  const next = nextFollow(ctx.settings.follow, work.follow, progress);
  Object.assign(work.follow, next.state, { lastDescription: description, lastCheckAt: now });
  const observeCompletion = (): void => {
    // CS became final at most this long ago: the gap since the previous check that saw it otherwise.
    if (previousCheck !== undefined) ctx.metrics.completionLag.observe({ processor: work.op.request }, (now - previousCheck) / 1000);
  };
  switch (decision.kind) {
    case 'set': {
      await transition(ctx, work.op, { status: decision.status, error: decision.error ?? null });
      if (decision.status === 'Succeeded' || decision.status === 'Failed' || decision.status === 'Canceled') {
        observeCompletion();
        return again(0, `${decision.status}: notify`);
      }
      return again(next.delayMs, `CS ${state}`);
    }
    case 'deleted':
      await transition(ctx, work.op, { status: 'Succeeded', error: null, deleteResource: true });
      observeCompletion();
      return again(0, 'deleted: notify');
    case 'keep':
      return again(next.delayMs, `CS ${state}`);
    case 'retry-later':
      return again(next.delayMs, decision.reason);
    case 'need-inflight-checks':
      return again(next.delayMs, 'inflight checks not readable yet');
  }
}

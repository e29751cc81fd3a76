import { isClusterResource } from '../domain/resource-types';
import { isTerminal } from '../domain/statuses';
import { mapClusterStatus, mapNodePoolStatus, type CsObservation, type StatusDecision } from '../domain/cs-mapping';
import type { CsClusterStatus, CsNodePoolStatus } from '../schemas/types.generated';
import { parseCsHref } from '../domain/ids';
import type { PipelineContext } from './context';
import { alignToTick, nextFollow } from './follow-schedule';
import type { OperationWork } from './operation-processor';
import { Outcome, again } from './outcome';
import { transition } from './transition';

/**
 * The status follow shared by every processor that waits on Clusters Service: one status read,
 * the mapping decision (domain/cs-mapping), the write-back, and when to look again (first check
 * learned per kind of operation, then backing off to the configured ceiling while nothing moves).
 */

/** Kind of operation as the first-check learner keys it, e.g. `nodePools/Update`. */
export function followKind(work: OperationWork): string {
  const type = work.resource.resourceType;
  return `${type.slice(type.lastIndexOf('/') + 1)}/${work.op.request}`;
}

/**
 * Right after this instance dispatched the operation to Clusters Service: the delay of the first
 * status check (learned for its kind). Checks after a miss start from half of it: by then CS is
 * likely close to done. Cluster checks are aligned to the batch tick (their reads are shared).
 */
export function firstCheckAfterDispatch(work: OperationWork, ctx: PipelineContext): number {
  const kind = followKind(work);
  const delayMs = ctx.firstCheck.delayMs(kind);
  Object.assign(work.follow, {
    firstCheckOf: kind,
    unchanged: 0,
    baseDelayMs: Math.max(ctx.settings.follow.initialDelayMs, Math.round(delayMs / 2)),
    // Reads sent before the dispatch answered say nothing about what it started.
    lastCheckAt: ctx.clock.now(),
  });
  ctx.metrics.followFirstCheckDelay.set({ kind }, delayMs / 1000);
  return isClusterResource(work.resource) ? onBatchTick(ctx, delayMs) : delayMs;
}

/** A cluster check's delay moved onto the shared tick, so reads due together share one call. */
function onBatchTick(ctx: PipelineContext, delayMs: number): number {
  const { batchTickMs = 0, maxDelayMs } = ctx.settings.follow;
  return alignToTick(delayMs, ctx.clock.now(), batchTickMs, maxDelayMs);
}

export interface FollowClusterHooks {
  /**
   * Asked when CS no longer knows the followed cluster, before a Delete is written done: an outcome
   * keeps the Delete going (something else of the resource is still in CS).
   */
  confirmDeleted?: () => Promise<Outcome | undefined>;
  /** Runs before a Delete is written done (CS no longer knows the cluster): clean-up that must precede it. */
  beforeDeleted?: () => Promise<unknown>;
}

export async function followCluster(
  work: OperationWork,
  ctx: PipelineContext,
  href: string,
  hooks: FollowClusterHooks = {},
): Promise<Outcome> {
  const { clusterId } = parseCsHref(href);
  const decide = (observation: CsObservation<CsClusterStatus>): StatusDecision =>
    mapClusterStatus({ request: work.op.request, current: work.op.status, observation });
  // A read made for another follower since our last check saves a call when it shows the end, or is
  // as recent as our shortest delay anyway.
  let timed = ctx.clusterStatus.latest(clusterId, work.follow.lastCheckAt);
  if (timed && !isFinal(decide(timed.observation)) && ctx.clock.now() - timed.requestedAt > ctx.settings.follow.initialDelayMs)
    timed = undefined;
  timed ??= await ctx.clusterStatus.observe(clusterId);
  const { observation } = timed;
  let decision = decide(observation);
  if (decision.kind === 'need-inflight-checks') {
    decision = mapClusterStatus({
      request: work.op.request,
      current: work.op.status,
      observation,
      inflightChecks: await ctx.cs.getInflightChecks(clusterId),
    });
  }
  if (isFinal(decision)) ctx.clusterStatus.unwatch(clusterId);
  else ctx.clusterStatus.watch(clusterId);
  if (decision.kind === 'deleted') {
    const held = await hooks.confirmDeleted?.();
    if (held) return held;
    await hooks.beforeDeleted?.();
  }
  const state = observation.found ? observation.status.state : 'gone';
  const description = observation.found ? observation.status.description || observation.status.state : 'not found';
  const outcome = await applyDecision(work, ctx, decision, state, description, timed.requestedAt);
  return outcome.kind === 'again' ? again(onBatchTick(ctx, outcome.afterMs), outcome.note) : outcome;
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
  observedAt?: number,
): Promise<Outcome> {
  const now = ctx.clock.now();
  const previousCheck = work.follow.lastCheckAt;
  // Back to quick checks only when what we write changes (Accepted → Provisioning …), not on every
  // intermediate CS state (pending → validating): that keeps Clusters Service calls per operation low.
  const progress = decision.kind === 'set' ? decision.status : decision.kind === 'keep' ? work.op.status : decision.kind;
  const next = nextFollow(ctx.settings.follow, work.follow, progress);
  const firstCheckOf = work.follow.firstCheckOf;
  if (firstCheckOf !== undefined) {
    ctx.firstCheck.record(firstCheckOf, isFinal(decision));
    ctx.metrics.followFirstCheckDelay.set({ kind: firstCheckOf }, ctx.firstCheck.delayMs(firstCheckOf) / 1000);
    work.follow.firstCheckOf = undefined;
  }
  Object.assign(work.follow, next.state, { lastDescription: description, lastCheckAt: observedAt ?? now });
  const observeCompletion = (): void => {
    // CS became final at most this long ago: the gap since the previous check that saw it otherwise.
    if (previousCheck !== undefined) ctx.metrics.completionLag.observe({ processor: work.op.request }, (now - previousCheck) / 1000);
  };
  switch (decision.kind) {
    case 'set': {
      await transition(ctx, work.op, { status: decision.status, error: decision.error ?? null }, work.resource);
      if (isTerminal(decision.status)) {
        observeCompletion();
        return again(0, `${decision.status}: notify`);
      }
      return again(next.delayMs, `CS ${state}`);
    }
    case 'deleted':
      await transition(ctx, work.op, { status: 'Succeeded', error: null, deleteResource: true }, work.resource);
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

/** CS reached a final state: what the first check after a dispatch hopes to find. */
function isFinal(decision: StatusDecision): boolean {
  return decision.kind === 'deleted' || (decision.kind === 'set' && isTerminal(decision.status));
}

/**
 * Status follow: one CS status call for the operation (cluster or node pool), mapped with opstream's
 * CS → status table, written back under the lock. `retry-later` (404 outside a Delete, unknown
 * state) writes nothing. OCM4001 reads the inflight checks and maps again.
 */
import { mapClusterStatus, mapNodePoolStatus, type StatusDecision } from '../../src/domain/cs-mapping';
import { parseCsHref } from '../../src/domain/ids';
import { DONE, keep, type BaselineContext, type StepResult, type StoredOperation } from './context';
import { writeBack, type WriteBackDecision } from './write-back';

async function observe(ctx: BaselineContext, op: StoredOperation, href: string): Promise<StatusDecision> {
  const target = parseCsHref(href);
  const base = { request: op.request, current: op.status };
  if (target.nodePoolId !== undefined) {
    return mapNodePoolStatus({ ...base, observation: await ctx.cs.observeNodePoolStatus(target.clusterId, target.nodePoolId) });
  }
  const observation = await ctx.cs.observeClusterStatus(target.clusterId);
  const decision = mapClusterStatus({ ...base, observation });
  if (decision.kind !== 'need-inflight-checks') return decision;
  return mapClusterStatus({ ...base, observation, inflightChecks: await ctx.cs.getInflightChecks(target.clusterId) });
}

export async function follow(ctx: BaselineContext, op: StoredOperation, href: string): Promise<StepResult> {
  const decision = await observe(ctx, op, href);
  if (decision.kind === 'retry-later' || decision.kind === 'need-inflight-checks') {
    ctx.logger.debug('no conclusion from Clusters Service; next pass', {
      operationId: op.id,
      reason: decision.kind === 'retry-later' ? decision.reason : decision.kind,
    });
    return keep(op);
  }
  const writeDecision: WriteBackDecision = decision;
  const written = await writeBack(ctx, op, writeDecision);
  if (!written) return DONE;
  return keep(written);
}

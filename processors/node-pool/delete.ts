import { nodePoolHref, parseCsHref } from '../src/domain/ids';
import { NODE_POOL_RESOURCE_TYPE, isNodePoolResource } from '../src/domain/resource-types';
import { createSettleRemainingMs, parentClusterId } from '../src/pipeline/delete-leftovers';
import { applyDecision, firstCheckAfterDispatch, followNodePool } from '../src/pipeline/follow-status';
import type { OperationProcessor } from '../src/pipeline/operation-processor';
import { again } from '../src/pipeline/outcome';
import { cancelSuperseded } from '../src/pipeline/supersede';

/**
 * Node pool delete: cancels what it supersedes; when a create may still be in flight (no CS id
 * recorded yet), waits until it can no longer land; DELETE in Clusters Service (404 = gone) — under
 * the recorded href, or under the parent cluster's CS id and the node pool's name (its CS id) —
 * follows to 404, deletes the Resource document, Succeeded. Only a node pool whose parent cluster
 * never had a CS id is removed without asking CS: nothing can exist there.
 */
export const nodePoolDelete: OperationProcessor = {
  name: 'node-pool-delete',
  resourceType: NODE_POOL_RESOURCE_TYPE,
  request: 'Delete',
  phase: 'any',
  async reconcile(work, ctx) {
    const { op, resource, follow, arm } = work;
    if (!isNodePoolResource(resource)) throw new Error(`resource ${resource.id} is not a node pool`);
    let href = resource.internalId || op.internalId;
    if (!href) {
      const clusterId = await parentClusterId(ctx, arm);
      href = clusterId ? nodePoolHref(clusterId, (arm.nodePoolName ?? '').toLowerCase()) : '';
    }
    if (!follow.dispatched) {
      await cancelSuperseded(ctx, op);
      const settleMs = createSettleRemainingMs(ctx, op, resource, Boolean(href));
      if (settleMs > 0) return again(settleMs, 'a create sent before the delete may still land in Clusters Service');
    }
    if (!href) return applyDecision(work, ctx, { kind: 'deleted' }, 'gone', 'the parent cluster never reached Clusters Service');
    const { clusterId, nodePoolId } = parseCsHref(href);
    if (!follow.dispatched) {
      const { alreadyGone } = await ctx.cs.deleteNodePool(clusterId, nodePoolId ?? '');
      follow.dispatched = true;
      if (!alreadyGone) return again(firstCheckAfterDispatch(work, ctx), 'delete requested');
    }
    return followNodePool(work, ctx, href);
  },
};

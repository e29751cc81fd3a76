import { parseCsHref } from '../src/domain/ids';
import { NODE_POOL_RESOURCE_TYPE, isNodePoolResource } from '../src/domain/resource-types';
import { applyDecision, firstCheckAfterDispatch, followNodePool } from '../src/pipeline/follow-status';
import type { OperationProcessor } from '../src/pipeline/operation-processor';
import { again } from '../src/pipeline/outcome';
import { cancelSuperseded } from '../src/pipeline/supersede';

/**
 * Node pool delete: cancels what it supersedes, DELETE in Clusters Service (404 = gone), follows to
 * 404, deletes the Resource document, Succeeded. A node pool never created in CS is simply removed.
 */
export const nodePoolDelete: OperationProcessor = {
  name: 'node-pool-delete',
  resourceType: NODE_POOL_RESOURCE_TYPE,
  request: 'Delete',
  phase: 'any',
  async reconcile(work, ctx) {
    const { op, resource, follow } = work;
    if (!isNodePoolResource(resource)) throw new Error(`resource ${resource.id} is not a node pool`);
    if (!follow.dispatched) await cancelSuperseded(ctx, op);
    const href = resource.internalId || op.internalId;
    if (!href) return applyDecision(work, ctx, { kind: 'deleted' }, 'gone', 'never created in Clusters Service');
    const { clusterId, nodePoolId } = parseCsHref(href);
    if (!follow.dispatched) {
      const { alreadyGone } = await ctx.cs.deleteNodePool(clusterId, nodePoolId ?? '');
      follow.dispatched = true;
      if (!alreadyGone) return again(firstCheckAfterDispatch(work, ctx), 'delete requested');
    }
    return followNodePool(work, ctx, href);
  },
};

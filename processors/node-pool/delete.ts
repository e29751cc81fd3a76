import {
  NODE_POOL_RESOURCE_TYPE,
  TerminalError,
  again,
  createSettleRemainingMs,
  isNodePoolResource,
  nodePoolHref,
  type OperationProcessor,
} from '../../src/kit';
import { cancelSuperseded } from '../kit/supersede';
import { parentClusterId } from '../kit/parent-cluster';
import { removeNodePoolLeftovers } from './leftovers';
import type { NodePoolLooks } from './looks';

/**
 * Node pool delete, decided afresh on every look: when a create may still be in flight (no CS id
 * recorded yet), wait until it can no longer land; then look at the node pool (under the recorded
 * href, or under the parent cluster's CS id and the node pool's name, its CS id) and DELETE it once,
 * unless CS is already uninstalling it (NodePoolLooks.deleteLook); gone (404) → cancel what the
 * Delete supersedes and is still running, delete the Resource document, Succeeded. (A superseded
 * operation this instance holds ends Canceled sooner, by its own handling, which the Delete's arrival
 * brings forward: see OperationPipeline.) Only a node pool whose parent cluster never had a CS id is
 * removed without asking CS: nothing can exist there.
 */
export const nodePoolDelete = (looks: NodePoolLooks): OperationProcessor => ({
  name: 'node-pool-delete',
  resourceType: NODE_POOL_RESOURCE_TYPE,
  request: 'Delete',
  phase: 'any',
  removeLeftovers: removeNodePoolLeftovers,
  async reconcile(work, kit) {
    const { follower } = looks;
    const { op, resource, arm } = work;
    if (!isNodePoolResource(resource)) throw new TerminalError(`resource ${resource.id} is not a node pool`);
    let href = resource.internalId || op.internalId;
    if (!href) {
      const clusterId = await parentClusterId(kit, arm);
      href = clusterId ? nodePoolHref(clusterId, (arm.nodePoolName ?? '').toLowerCase()) : '';
    }
    const settleMs = createSettleRemainingMs(kit, op, resource, Boolean(href));
    if (settleMs > 0) {
      await cancelSuperseded(kit, op);
      return again(settleMs, 'a create sent before the delete may still land in Clusters Service');
    }
    if (!href) {
      await cancelSuperseded(kit, op);
      return follower.apply(work, kit, { kind: 'deleted' }, 'gone', 'the parent cluster never reached Clusters Service');
    }
    return looks.deleteLook(work, kit, href, {
      gone: async () => {
        await cancelSuperseded(kit, op);
        return follower.apply(work, kit, { kind: 'deleted' }, 'gone', 'not found');
      },
    });
  },
});

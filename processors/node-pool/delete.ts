import { TerminalError } from '../../src/domain/errors';
import { nodePoolHref, parseCsHref } from '../../src/domain/ids';
import { NODE_POOL_RESOURCE_TYPE, isNodePoolResource } from '../../src/domain/resource-types';
import { createSettleRemainingMs, parentClusterId } from '../../src/pipeline/reconcile/delete-leftovers';
import type { OperationProcessor } from '../../src/pipeline/reconcile/processor';
import { again, type Outcome } from '../../src/pipeline/queue/outcome';
import type { Follower } from '../kit/follow';
import { cancelSuperseded } from '../kit/supersede';

/**
 * Node pool delete, decided afresh on every look: when a create may still be in flight (no CS id
 * recorded yet), wait until it can no longer land; the node pool (under the recorded href, or under
 * the parent cluster's CS id and the node pool's name, its CS id) not being deleted in CS → send
 * DELETE (idempotent), then cancel what the Delete supersedes; being deleted → follow; 404 → delete the
 * Resource document, Succeeded. Only a node pool whose parent cluster never had a CS id is removed
 * without asking CS: nothing can exist there.
 */
export const nodePoolDelete = (follower: Follower): OperationProcessor => ({
  name: 'node-pool-delete',
  resourceType: NODE_POOL_RESOURCE_TYPE,
  request: 'Delete',
  phase: 'any',
  async reconcile(work, kit) {
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
    const { clusterId, nodePoolId } = parseCsHref(href);
    // With events: DELETE without reading first (a node pool already gone falls back to the read).
    if (follower.mayDeleteWithoutReading(work, href)) {
      const { alreadyGone } = await kit.cs.deleteNodePool(clusterId, nodePoolId ?? '');
      await cancelSuperseded(kit, op);
      if (!alreadyGone) return again(follower.firstCheckAfterDispatch(work, kit, href), 'delete requested');
    }
    return follower.nodePool(work, kit, href, async (o): Promise<Outcome | undefined> => {
      if (!o.found) {
        await cancelSuperseded(kit, op);
        return undefined;
      }
      if (o.status.state.node_pool_state_value === 'uninstalling') return undefined;
      const { alreadyGone } = await kit.cs.deleteNodePool(clusterId, nodePoolId ?? '');
      await cancelSuperseded(kit, op);
      return alreadyGone ? undefined : again(follower.firstCheckAfterDispatch(work, kit), 'delete requested');
    });
  },
});

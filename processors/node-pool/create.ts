import {
  NODE_POOL_RESOURCE_TYPE,
  TerminalError,
  again,
  isConflict,
  isNodePoolResource,
  isNotFound,
  isOutcomeUnknown,
  nodePoolHref,
  parseCsHref,
  type OperationProcessor,
} from '../../src/kit';
import { failOnPermanentRefusal } from '../kit/clusters-service-failure';
import { recordInternalId } from '../kit/resource-ids';
import { createExtras } from './desired-state';
import type { NodePoolLooks } from './looks';

/**
 * Node pool create dispatch. The node pool's CS id is its name, so a create whose answer was lost
 * is found again by name (409 → read it and adopt it): one node pool per resource. Waits while the
 * parent cluster has no CS id yet. The Resource gets the CS href (under the subscription lock, only
 * while it is still this operation's) before the Operation.
 */
export const nodePoolCreate = (looks: NodePoolLooks): OperationProcessor => ({
  name: 'node-pool-create',
  resourceType: NODE_POOL_RESOURCE_TYPE,
  request: 'Create',
  phase: 'dispatch',
  async reconcile(work, kit) {
    const { follower } = looks;
    const { op, resource, arm } = work;
    if (!isNodePoolResource(resource)) throw new TerminalError(`resource ${resource.id} is not a node pool`);
    const pk = op.partitionKey;
    if (resource.internalId) {
      await kit.recordDispatched(op, resource.internalId, 'Provisioning');
      return again(0, 'recovered the CS id from the resource');
    }
    const parent = await kit.resources.readByResourceId(arm.clusterResourceId);
    if (!parent?.internalId) return again(kit.settings.waitDelayMs, 'parent cluster has no Clusters Service id yet');
    const { clusterId } = parseCsHref(parent.internalId);
    const nodePoolId = (arm.nodePoolName ?? '').toLowerCase();
    const p = resource.properties;
    // A Delete that took the Resource over since it was read must not race a create.
    const current = await kit.resources.read(pk, resource.id);
    if (current?.activeOperationId !== op.id) return again(0, 'superseded while dispatching');
    kit.checkFence();
    try {
      await kit.cs.createNodePool(clusterId, {
        id: nodePoolId,
        replicas: p.replicas,
        version: { id: p.version },
        ...(p.vmSize ? { azure_node_pool: { vm_size: p.vmSize } } : {}),
        ...(p.autoRepair !== undefined ? { auto_repair: p.autoRepair } : {}),
        ...(p.autoScaling ? { autoscaling: { min_replica: p.autoScaling.min, max_replica: p.autoScaling.max } } : {}),
        ...createExtras(p),
      });
    } catch (err) {
      if (isOutcomeUnknown(err)) return again(follower.shortestDelayMs, 'create outcome unknown');
      if (isConflict(err)) {
        // Ours from an earlier attempt whose answer was lost, or the cluster is being deleted.
        const existing = await kit.cs
          .getNodePool(clusterId, nodePoolId)
          .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
        if (!existing) return again(kit.settings.waitDelayMs, 'Clusters Service refused the node pool for now');
      } else {
        const settled = await failOnPermanentRefusal(kit, op, err);
        if (settled) return settled;
        throw err;
      }
    }
    const href = nodePoolHref(clusterId, nodePoolId);
    const onResource = await recordInternalId(kit, op, current, href, 'Provisioning');
    if (onResource.outcome !== 'recorded') return again(0, `CS id not recorded: ${onResource.outcome}`);
    kit.checkFence();
    await kit.recordDispatched(op, href, 'Provisioning');
    // From now on the node pool rides along in its cluster's shared node pool reads (batching on).
    looks.reads.watch(clusterId, nodePoolId);
    return again(follower.firstCheckAfterDispatch(work, kit, looks.target(href, op.request)), `dispatched as ${nodePoolId}`);
  },
});

import { isConflict, isNotFound, isOutcomeUnknown } from '../src/clusters-service';
import { nodePoolHref, parseCsHref } from '../src/domain/ids';
import { NODE_POOL_RESOURCE_TYPE, isNodePoolResource } from '../src/domain/resource-types';
import type { OperationProcessor } from '../src/pipeline/operation-processor';
import { failOnPermanentRefusal } from '../src/pipeline/clusters-service-failure';
import { firstCheckAfterDispatch } from '../src/pipeline/follow-status';
import { again } from '../src/pipeline/outcome';
import { recordInternalId } from '../src/pipeline/resource-ids';

/**
 * Node pool create dispatch. The node pool's CS id is its name, so a create whose answer was lost
 * is found again by name (409 → read it and adopt it): one node pool per resource. Waits while the
 * parent cluster has no CS id yet. The Resource gets the CS href (under the subscription lock, only
 * while it is still this operation's) before the Operation.
 */
export const nodePoolCreate: OperationProcessor = {
  name: 'node-pool-create',
  resourceType: NODE_POOL_RESOURCE_TYPE,
  request: 'Create',
  phase: 'dispatch',
  async reconcile(work, ctx) {
    const { op, resource, arm } = work;
    if (!isNodePoolResource(resource)) throw new Error(`resource ${resource.id} is not a node pool`);
    const pk = op.partitionKey;
    if (resource.internalId) {
      const r = await ctx.operations.setInternalId(pk, op.id, resource.internalId);
      if (r.outcome === 'updated') ctx.ownWrites.record(r.document);
      return again(0, 'recovered the CS id from the resource');
    }
    const parent = await ctx.resources.readByResourceId(arm.clusterResourceId);
    if (!parent?.internalId) return again(ctx.settings.waitDelayMs, 'parent cluster has no Clusters Service id yet');
    const { clusterId } = parseCsHref(parent.internalId);
    const nodePoolId = (arm.nodePoolName ?? '').toLowerCase();
    const p = resource.properties;
    // A Delete that took the Resource over since it was read must not race a create.
    const current = await ctx.resources.read(pk, resource.id);
    if (current?.activeOperationId !== op.id) return again(0, 'superseded while dispatching');
    ctx.fence?.throwIfAborted();
    try {
      await ctx.cs.createNodePool(clusterId, {
        id: nodePoolId,
        replicas: p.replicas,
        version: { id: p.version },
        ...(p.vmSize ? { azure_node_pool: { vm_size: p.vmSize } } : {}),
        ...(p.autoRepair !== undefined ? { auto_repair: p.autoRepair } : {}),
        ...(p.autoScaling ? { autoscaling: { min_replica: p.autoScaling.min, max_replica: p.autoScaling.max } } : {}),
      });
    } catch (err) {
      if (isOutcomeUnknown(err)) return again(ctx.settings.follow.initialDelayMs, 'create outcome unknown');
      if (isConflict(err)) {
        // Ours from an earlier attempt whose answer was lost, or the cluster is being deleted.
        const existing = await ctx.cs.getNodePool(clusterId, nodePoolId).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
        if (!existing) return again(ctx.settings.waitDelayMs, 'Clusters Service refused the node pool for now');
      } else {
        const settled = await failOnPermanentRefusal(ctx, op, err);
        if (settled) return settled;
        throw err;
      }
    }
    const href = nodePoolHref(clusterId, nodePoolId);
    const onResource = await recordInternalId(ctx, op, current, href);
    if (onResource.outcome !== 'recorded') return again(0, `CS id not recorded: ${onResource.outcome}`);
    ctx.fence?.throwIfAborted();
    const onOperation = await ctx.operations.setInternalId(pk, op.id, href);
    if (onOperation.outcome === 'updated') ctx.ownWrites.record(onOperation.document);
    return again(firstCheckAfterDispatch(work, ctx), `dispatched as ${nodePoolId}`);
  },
};

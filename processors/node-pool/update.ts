import { isConflict } from '../src/clusters-service';
import { parseCsHref } from '../src/domain/ids';
import { NODE_POOL_RESOURCE_TYPE, isNodePoolResource } from '../src/domain/resource-types';
import type { OperationProcessor } from '../src/pipeline/operation-processor';
import { failOnPermanentRefusal } from '../src/pipeline/clusters-service-failure';
import { firstCheckAfterDispatch } from '../src/pipeline/follow-status';
import { again } from '../src/pipeline/outcome';
import { transition } from '../src/pipeline/transition';

/** Node pool update dispatch: PATCH the desired size/version (idempotent), then Updating and follow. */
export const nodePoolUpdate: OperationProcessor = {
  name: 'node-pool-update',
  resourceType: NODE_POOL_RESOURCE_TYPE,
  request: 'Update',
  phase: 'dispatch',
  async reconcile(work, ctx) {
    const { op, resource } = work;
    if (!isNodePoolResource(resource)) throw new Error(`resource ${resource.id} is not a node pool`);
    const href = resource.internalId || op.internalId;
    if (!href) return again(ctx.settings.waitDelayMs, 'node pool not created in Clusters Service yet');
    const { clusterId, nodePoolId } = parseCsHref(href);
    const p = resource.properties;
    try {
      await ctx.cs.updateNodePool(clusterId, nodePoolId ?? '', {
        replicas: p.replicas,
        version: { id: p.version },
        ...(p.autoScaling ? { autoscaling: { min_replica: p.autoScaling.min, max_replica: p.autoScaling.max } } : {}),
      });
    } catch (err) {
      if (isConflict(err)) return again(ctx.settings.waitDelayMs, 'node pool busy in Clusters Service');
      const settled = await failOnPermanentRefusal(ctx, op, err);
      if (settled) return settled;
      throw err;
    }
    await transition(ctx, op, { status: 'Updating', error: null }, resource);
    return again(firstCheckAfterDispatch(work, ctx), 'update dispatched');
  },
};

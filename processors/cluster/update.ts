import { isConflict } from '../src/clusters-service';
import { parseCsHref } from '../src/domain/ids';
import { CLUSTER_RESOURCE_TYPE, isClusterResource } from '../src/domain/resource-types';
import type { OperationProcessor } from '../src/pipeline/operation-processor';
import { failOnPermanentRefusal } from '../src/pipeline/clusters-service-failure';
import { firstCheckAfterDispatch } from '../src/pipeline/follow-status';
import { again } from '../src/pipeline/outcome';
import { transition } from '../src/pipeline/transition';

/**
 * Cluster update dispatch: sends the desired properties to Clusters Service (`PATCH`, idempotent:
 * the same desired state again changes nothing), then moves the operation to Updating, where the
 * status follow takes over. CS refuses a PATCH while the cluster is not ready (409): look again.
 */
export const clusterUpdate: OperationProcessor = {
  name: 'cluster-update',
  resourceType: CLUSTER_RESOURCE_TYPE,
  request: 'Update',
  phase: 'dispatch',
  async reconcile(work, ctx) {
    const { op, resource } = work;
    if (!isClusterResource(resource)) throw new Error(`resource ${resource.id} is not a cluster`);
    const href = resource.internalId || op.internalId;
    if (!href) return again(ctx.settings.waitDelayMs, 'cluster not created in Clusters Service yet');
    const { clusterId } = parseCsHref(href);
    try {
      await ctx.cs.updateCluster(clusterId, { version: { id: resource.properties.version } });
    } catch (err) {
      if (isConflict(err)) return again(ctx.settings.waitDelayMs, 'cluster busy in Clusters Service');
      const settled = await failOnPermanentRefusal(ctx, op, err);
      if (settled) return settled;
      throw err;
    }
    await transition(ctx, op, { status: 'Updating', error: null }, resource);
    return again(firstCheckAfterDispatch(work, ctx), 'update dispatched');
  },
};

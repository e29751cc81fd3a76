import { TerminalError } from '../../src/domain/errors';
import { isConflict } from '../../src/clusters-service';
import { parseCsHref } from '../../src/domain/ids';
import { CLUSTER_RESOURCE_TYPE, isClusterResource } from '../../src/domain/resource-types';
import type { OperationProcessor } from '../../src/pipeline/reconcile/processor';
import { again } from '../../src/pipeline/queue/outcome';
import { failOnPermanentRefusal } from '../kit/clusters-service-failure';
import type { Follower } from '../../src/pipeline/reconcile/follow/follower';

/**
 * Cluster update dispatch: sends the desired properties to Clusters Service (`PATCH`, idempotent:
 * the same desired state again changes nothing), then moves the operation to Updating, where the
 * status follow takes over. CS refuses a PATCH while the cluster is not ready (409): look again.
 */
export const clusterUpdate = (follower: Follower): OperationProcessor => ({
  name: 'cluster-update',
  resourceType: CLUSTER_RESOURCE_TYPE,
  request: 'Update',
  phase: 'dispatch',
  async reconcile(work, kit) {
    const { op, resource } = work;
    if (!isClusterResource(resource)) throw new TerminalError(`resource ${resource.id} is not a cluster`);
    const href = resource.internalId || op.internalId;
    if (!href) return again(kit.settings.waitDelayMs, 'cluster not created in Clusters Service yet');
    const { clusterId } = parseCsHref(href);
    try {
      await kit.cs.updateCluster(clusterId, { version: { id: resource.properties.version } });
    } catch (err) {
      if (isConflict(err)) return again(kit.settings.waitDelayMs, 'cluster busy in Clusters Service');
      const settled = await failOnPermanentRefusal(kit, op, err);
      if (settled) return settled;
      throw err;
    }
    await kit.writeBack(op, { status: 'Updating', error: null }, resource);
    return again(follower.firstCheckAfterDispatch(work, kit, href), 'update dispatched');
  },
});

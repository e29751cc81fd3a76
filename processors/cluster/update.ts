import {
  CLUSTER_RESOURCE_TYPE,
  TerminalError,
  again,
  isClusterResource,
  isConflict,
  parseCsHref,
  type OperationProcessor,
} from '../../src/kit';
import { failOnPermanentRefusal } from '../kit/clusters-service-failure';
import { clusterTarget, type ClusterLooks } from './looks';

/**
 * Cluster update dispatch: sends the desired properties to Clusters Service (`PATCH`, idempotent:
 * the same desired state again changes nothing), then moves the operation to Updating, where the
 * status follow takes over. CS refuses a PATCH while the cluster is not ready (409): look again.
 */
export const clusterUpdate = (looks: ClusterLooks): OperationProcessor => ({
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
    return again(looks.follower.firstCheckAfterDispatch(work, kit, clusterTarget(href, op.request)), 'update dispatched');
  },
});

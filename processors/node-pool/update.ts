import {
  NODE_POOL_RESOURCE_TYPE,
  TerminalError,
  again,
  isConflict,
  isNodePoolResource,
  parseCsHref,
  type OperationProcessor,
} from '../../src/kit';
import { failOnPermanentRefusal } from '../kit/clusters-service-failure';
import { nodePoolTarget, type NodePoolLooks } from './looks';

/** Node pool update dispatch: PATCH the desired size/version (idempotent), then Updating and follow. */
export const nodePoolUpdate = ({ follower }: NodePoolLooks): OperationProcessor => ({
  name: 'node-pool-update',
  resourceType: NODE_POOL_RESOURCE_TYPE,
  request: 'Update',
  phase: 'dispatch',
  async reconcile(work, kit) {
    const { op, resource } = work;
    if (!isNodePoolResource(resource)) throw new TerminalError(`resource ${resource.id} is not a node pool`);
    const href = resource.internalId || op.internalId;
    if (!href) return again(kit.settings.waitDelayMs, 'node pool not created in Clusters Service yet');
    const { clusterId, nodePoolId } = parseCsHref(href);
    const p = resource.properties;
    try {
      await kit.cs.updateNodePool(clusterId, nodePoolId ?? '', {
        replicas: p.replicas,
        version: { id: p.version },
        ...(p.autoScaling ? { autoscaling: { min_replica: p.autoScaling.min, max_replica: p.autoScaling.max } } : {}),
      });
    } catch (err) {
      if (isConflict(err)) return again(kit.settings.waitDelayMs, 'node pool busy in Clusters Service');
      const settled = await failOnPermanentRefusal(kit, op, err);
      if (settled) return settled;
      throw err;
    }
    await kit.writeBack(op, { status: 'Updating', error: null }, resource);
    return again(follower.firstCheckAfterDispatch(work, kit, nodePoolTarget(href, op.request)), 'update dispatched');
  },
});

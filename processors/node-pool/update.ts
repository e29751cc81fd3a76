import {
  NODE_POOL_RESOURCE_TYPE,
  TerminalError,
  again,
  ended,
  isNodePoolResource,
  parseCsHref,
  type OperationProcessor,
} from '../../src/kit';
import { sendDifference } from '../kit/send-difference';
import { nodePoolDifference } from './desired-state';
import { nodePoolTarget, type NodePoolLooks } from './looks';

/**
 * Node pool update dispatch: reads the node pool (one `GET`, its status embedded), sends the
 * difference between the Resource's desired state and what Clusters Service holds (`PATCH`, at most
 * once per `follow.updateCooldownMs`), then Updating and follow. Nothing different: Succeeded at
 * once, no PATCH. CS takes a PATCH only while the node pool is ready: otherwise, and on a 409, look again.
 */
export const nodePoolUpdate = (looks: NodePoolLooks): OperationProcessor => ({
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
    if (!nodePoolId) throw new TerminalError(`${href} is not a node pool href`);
    const read = await looks.observeNodePool(kit, clusterId, nodePoolId);
    const observation = read?.observation ?? (await kit.cs.observeNodePoolStatus(clusterId, nodePoolId));
    if (!observation.found) {
      const message = `Clusters Service has no node pool '${nodePoolId}' in cluster '${clusterId}' to update`;
      await kit.writeBack(op, { status: 'Failed', error: { code: 'NotFound', message } }, resource);
      return ended('Failed');
    }
    // Read with its status embedded, or (a service that does not embed it) without: read it again.
    const nodePool = read?.nodePool ?? (await kit.cs.getNodePool(clusterId, nodePoolId));
    const state = observation.status.state.node_pool_state_value;
    const patch = nodePoolDifference(resource.properties, nodePool);
    if (patch && state !== 'ready') return again(kit.settings.waitDelayMs, `node pool ${state} in Clusters Service`);
    const sent = await sendDifference(work, kit, { href, patch, cooldown: looks.cooldown }, (p) =>
      kit.cs.updateNodePool(clusterId, nodePoolId, p),
    );
    switch (sent.kind) {
      case 'refused':
        return sent.outcome;
      case 'busy':
        return again(kit.settings.waitDelayMs, 'node pool busy in Clusters Service');
      case 'cooling':
        return again(sent.afterMs, 'waiting for the update cooldown');
      case 'same':
        if (state === 'ready') {
          await kit.writeBack(op, { status: 'Succeeded', error: null }, resource);
          return ended('Succeeded', 'nothing to change');
        }
        break;
      case 'sent':
        break;
    }
    await kit.writeBack(op, { status: 'Updating', error: null }, resource);
    return again(looks.follower.firstCheckAfterDispatch(work, kit, nodePoolTarget(href, op.request)), 'update dispatched');
  },
});

import {
  NODE_POOL_RESOURCE_TYPE,
  TerminalError,
  again,
  ended,
  isNodePoolResource,
  parseCsHref,
  pastTime,
  type CsNodePoolUpdateRequest,
  type OperationProcessor,
  type Outcome,
} from '../../src/kit';
import { sendDifference } from '../kit/send-difference';
import { heldNodePool, nodePoolDifference, nodePoolDifferenceFromRecord } from './desired-state';
import type { NodePoolLooks } from './looks';

/**
 * Node pool update dispatch: reads the node pool (a share of the next tick's shared read of its
 * cluster's node pools with batching on, one `GET` with its status embedded otherwise), sends the
 * difference between the Resource's desired state and what Clusters Service holds (`PATCH`, at most
 * once per `follow.updateCooldownMs`), then Updating and follow. Nothing different: Succeeded at
 * once, no PATCH. CS takes a PATCH only while the node pool is ready: otherwise, and on a 409, look again.
 * When the Resource carries the record its last Succeeded operation left (`clustersServiceState`), the
 * first look sends the difference from that record without reading first; after a 409 the next look
 * reads, and a record that shows nothing different is confirmed by a read, as above.
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
    const target = looks.target(href, op.request);
    const dispatched = async (): Promise<Outcome> => {
      await kit.writeBack(op, { status: 'Updating', error: null }, resource);
      looks.reads.watch(clusterId, nodePoolId);
      return again(looks.follower.firstCheckAfterDispatch(work, kit, target), 'update dispatched');
    };
    const send = (patch: CsNodePoolUpdateRequest | undefined) =>
      sendDifference(work, kit, { href, patch, cooldown: looks.cooldown }, (p) => kit.cs.updateNodePool(clusterId, nodePoolId, p));
    if (work.follow.watch === undefined && resource.clustersServiceState) {
      // Watched from here on, so that the next look reads whatever becomes of this one.
      looks.follower.watch(work, target);
      const patch = nodePoolDifferenceFromRecord(resource.properties, resource.clustersServiceState);
      const sent = patch && (await send(patch));
      if (sent?.kind === 'refused') return sent.outcome;
      if (sent?.kind === 'sent') return dispatched();
      // Not ready (409): the next look reads what CS holds.
      if (sent?.kind === 'busy') return again(kit.settings.waitDelayMs, 'node pool busy in Clusters Service');
    }
    let read;
    if (looks.reads.batching) {
      if (work.follow.watch === undefined) {
        // First look: join the next tick's shared read of the cluster's node pools instead of a call
        // of its own (the node pool rides along from now on), and let a CS event bring the look forward.
        looks.follower.watch(work, target);
        looks.reads.watch(clusterId, nodePoolId);
        return looks.follower.onTick(again(1, 'reading the node pool with the next shared read'), kit);
      }
      // The read is a share of the unfenced shared call: a handling whose lease moved stops before it.
      kit.checkFence();
      // A shared read made since the Operation was written shows CS as of then or later: no call needed.
      const writtenAt = pastTime(op.startTime, kit.clock.now(), op);
      read = looks.latestRead(clusterId, nodePoolId, writtenAt) ?? (await looks.sharedRead(kit, clusterId, nodePoolId));
    } else {
      read = await looks.observeNodePool(kit, clusterId, nodePoolId);
    }
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
    const sent = await send(patch);
    switch (sent.kind) {
      case 'refused':
        return sent.outcome;
      case 'busy':
        return again(kit.settings.waitDelayMs, 'node pool busy in Clusters Service');
      case 'cooling':
        return again(sent.afterMs, 'waiting for the update cooldown');
      case 'same':
        if (state === 'ready') {
          await kit.writeBack(op, { status: 'Succeeded', error: null, observed: heldNodePool(nodePool) }, resource);
          return ended('Succeeded', 'nothing to change');
        }
        break;
      case 'sent':
        break;
    }
    return dispatched();
  },
});

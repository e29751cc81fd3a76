import {
  CLUSTER_RESOURCE_TYPE,
  TerminalError,
  again,
  ended,
  isClusterResource,
  parseCsHref,
  pastTime,
  type OperationProcessor,
} from '../../src/kit';
import { sendDifference } from '../kit/send-difference';
import { clusterDifference } from './desired-state';
import { clusterTarget, type ClusterLooks } from './looks';

/**
 * Cluster update dispatch: reads the cluster (a share of the shared status read), sends the
 * difference between the Resource's desired state and what Clusters Service holds (`PATCH`, at most
 * once per `follow.updateCooldownMs`), then moves the operation to Updating, where the status follow
 * takes over. Nothing different: Succeeded at once, no PATCH. CS takes a PATCH only while the cluster
 * is ready: otherwise, and on a 409, look again.
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
    // The read is a share of the unfenced shared call: a handling whose lease moved stops before it.
    kit.checkFence();
    const target = clusterTarget(href, op.request);
    if (looks.status.batching && work.follow.watch === undefined) {
      // First look: join the shared status read of the next tick instead of a call of its own (the
      // cluster rides along from now on), and let a CS event about it bring the look forward.
      looks.follower.watch(work, target);
      looks.status.watch(clusterId);
      return looks.follower.onTick(again(1, 'reading the cluster with the next shared status read'), kit);
    }
    // A shared read made since the Operation was written shows CS as of then or later: no call needed.
    const writtenAt = pastTime(op.startTime, kit.clock.now(), op);
    const shared = looks.status.latest(clusterId, writtenAt);
    const { observation, cluster } = shared?.cluster ? shared : await looks.status.observeCluster(clusterId);
    if (!observation.found || !cluster) {
      const message = `Clusters Service has no cluster '${clusterId}' to update`;
      await kit.writeBack(op, { status: 'Failed', error: { code: 'NotFound', message } }, resource);
      return ended('Failed');
    }
    const patch = clusterDifference(resource.properties, cluster);
    if (patch && observation.status.state !== 'ready')
      return again(kit.settings.waitDelayMs, `cluster ${observation.status.state} in Clusters Service`);
    const sent = await sendDifference(work, kit, { href, patch, cooldown: looks.cooldown }, (p) => kit.cs.updateCluster(clusterId, p));
    switch (sent.kind) {
      case 'refused':
        return sent.outcome;
      case 'busy':
        return again(kit.settings.waitDelayMs, 'cluster busy in Clusters Service');
      case 'cooling':
        return again(sent.afterMs, 'waiting for the update cooldown');
      case 'same':
        if (observation.status.state === 'ready') {
          await kit.writeBack(op, { status: 'Succeeded', error: null }, resource);
          return ended('Succeeded', 'nothing to change');
        }
        break;
      case 'sent':
        break;
    }
    // Sent, or already held while CS still works on it: the follow says when CS is done.
    await kit.writeBack(op, { status: 'Updating', error: null }, resource);
    return again(looks.follower.firstCheckAfterDispatch(work, kit, target), 'update dispatched');
  },
});

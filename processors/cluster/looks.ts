import {
  Follower,
  mapClusterStatus,
  parseCsHref,
  sendDelete,
  isClusterResource,
  isFinal,
  wakeStates,
  DELETE_ACCEPTED,
  DELETE_BUSY,
  again,
  type CsCluster,
  type CsClusterStatus,
  type CsObservation,
  type FollowTarget,
  type OperationRequest,
  type OperationWork,
  type Outcome,
  type ProcessorKit,
  type ProcessorTools,
  type StatusDecision,
} from '../../src/kit';
import { lastSentAt, sendDifference } from '../kit/send-difference';
import { UpdateCooldown } from '../kit/update-cooldown';
import { clusterDifference } from './desired-state';
import { ClusterStatusBatcher, type TimedObservation } from './status-batcher';

/** The cluster states in which an operation fails (domain/cs-mapping). */
const CLUSTER_ERROR_STATES = ['error'] as const;
/** The cluster state in which CS is already deleting it: a DELETE would change nothing. */
const UNINSTALLING = 'uninstalling';

/** What a cluster operation's follow reads: the cluster, in the shared (batched) status read. */
export function clusterTarget(href: string, request: OperationRequest): FollowTarget {
  return { href, wakeOn: wakeStates(request, CLUSTER_ERROR_STATES), batched: true };
}

/**
 * How a cluster operation looks at Clusters Service: status reads ride in one shared search per tick
 * (ClusterStatusBatcher) for every cluster in flight, and a Delete's look reads by id and by ARM name
 * in that same call. What to write and when to look again is the shared follow's (`Follower`).
 */
export class ClusterLooks {
  /** Cluster status reads, shared between followers (one call for many clusters). */
  readonly status: ClusterStatusBatcher;
  /** At most one PATCH per cluster per `follow.updateCooldownMs`, dispatch and follow alike. */
  readonly cooldown: UpdateCooldown;

  constructor(
    readonly follower: Follower,
    tools: ProcessorTools,
  ) {
    this.status = new ClusterStatusBatcher(tools.cs, { windowMs: tools.follow.batchWindowMs, now: () => tools.clock.now() });
    this.cooldown = new UpdateCooldown(tools.follow.updateCooldownMs, () => tools.clock.now());
  }

  /**
   * A Create's or an Update's look: the cluster's status (`installing` → Provisioning, `updating` →
   * Updating, `ready` → Succeeded, `error` → Failed with the inflight-check errors for OCM4001). An
   * Update reads the cluster itself (the same shared read): `ready` is Succeeded only once the
   * cluster holds the Resource's desired state; ready with a difference left sends it again.
   */
  async statusLook(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId } = parseCsHref(href);
    const target = clusterTarget(href, work.op.request);
    this.follower.watch(work, target);
    const decide = (observation: CsObservation<CsClusterStatus>): StatusDecision =>
      mapClusterStatus({ request: work.op.request, current: work.op.status, observation });
    // A read made for another follower since our last check saves a call when it shows the end, or is
    // as recent as our shortest delay anyway — but not on a look an event brought forward: a read made
    // before the event says nothing of the end the event reports, and keeping on it would leave the
    // operation to the safety-net delay.
    let timed = this.status.latest(clusterId, work.follow.lastCheckAt);
    const stale = (t: TimedObservation): boolean =>
      work.follow.woken === true || kit.clock.now() - t.requestedAt > this.follower.shortestDelayMs;
    if (timed && !isFinal(decide(timed.observation)) && stale(timed)) timed = undefined;
    const isUpdate = work.op.request === 'Update';
    if (timed && isUpdate && timed.observation.found && !timed.cluster) timed = undefined;
    timed ??= isUpdate ? await this.status.observeCluster(clusterId) : await this.status.observe(clusterId);
    const { observation } = timed;
    let decision = decide(observation);
    if (decision.kind === 'need-inflight-checks') {
      decision = mapClusterStatus({
        request: work.op.request,
        current: work.op.status,
        observation,
        inflightChecks: await kit.cs.getInflightChecks(clusterId),
      });
    }
    const state = observation.found ? observation.status.state : 'gone';
    const description = observation.found ? observation.status.description || observation.status.state : 'not found';
    if (isUpdate && decision.kind === 'set' && decision.status === 'Succeeded' && timed.cluster) {
      const seen = { state, observedAt: timed.requestedAt };
      const left = await this.sendWhatDiffers(work, kit, href, timed.cluster, seen);
      if (left) {
        this.status.watch(clusterId);
        return this.follower.onTick(left, kit);
      }
    }
    if (isFinal(decision)) this.status.unwatch(clusterId);
    else this.status.watch(clusterId);
    return this.follower.onTick(await this.follower.apply(work, kit, decision, state, description, timed.requestedAt), kit);
  }

  /**
   * CS reports the cluster ready: what of the desired state it does not hold yet is sent again (once
   * the cooldown allows). Undefined when nothing differs; otherwise how this look ends.
   */
  private async sendWhatDiffers(
    work: OperationWork,
    kit: ProcessorKit,
    href: string,
    cluster: CsCluster,
    seen: { state: string; observedAt: number },
  ): Promise<Outcome | undefined> {
    const { resource } = work;
    if (!isClusterResource(resource)) return undefined;
    const { clusterId } = parseCsHref(href);
    const patch = clusterDifference(resource.properties, cluster);
    const resendAfter = lastSentAt(work, kit);
    const sent = await sendDifference(work, kit, { href, patch, cooldown: this.cooldown, resendAfter }, (p) =>
      kit.cs.updateCluster(clusterId, p),
    );
    const keep = async (note: string, atLeastMs = 0): Promise<Outcome> => {
      const outcome = await this.follower.apply(work, kit, { kind: 'keep' }, seen.state, note, seen.observedAt);
      return outcome.kind === 'again' ? again(Math.max(outcome.afterMs, atLeastMs), note) : outcome;
    };
    switch (sent.kind) {
      case 'same':
        return undefined;
      case 'refused':
        return sent.outcome;
      case 'sent':
        return again(this.follower.firstCheckAfterDispatch(work, kit, clusterTarget(href, work.op.request)), 'difference sent again');
      case 'cooling':
        return keep('ready, not yet at the desired state: waiting for the update cooldown', sent.afterMs);
      case 'busy':
        return keep('ready, not yet at the desired state: Clusters Service refused the PATCH for now');
    }
  }

  /**
   * A Delete's look: one read of everything Clusters Service holds for the resource — the cluster on
   * the documents (by id) and anything under the resource's ARM name (a create whose answer was lost,
   * a cluster made outside opstream) — riding in the shared status call; then a DELETE to each one CS
   * is not already uninstalling (idempotent). Nothing left → `gone`. The decision rests on what CS
   * lists on this look, never on what this instance remembers, and while the clusters uninstall a look
   * costs a share of one call: the DELETE is sent once, and the closing search by name is that same
   * read. Past the deadline (`work.late`) nothing is sent: the failure says what CS last reported.
   */
  async deleteLook(work: OperationWork, kit: ProcessorKit, href: string, hooks: { gone: () => Promise<Outcome> }): Promise<Outcome> {
    const { clusterId } = parseCsHref(href);
    const target = clusterTarget(href, work.op.request);
    const { follower } = this;
    follower.watch(work, target);
    // Just written by the frontend, which never calls CS: nobody has asked CS to delete the cluster
    // yet, so a read would only say what is known. The DELETE goes out at once; if it finds the
    // cluster there, the looks after it read (by id and by name) as below. Decided from the
    // Operation's age, not from what this instance remembers: a repeated DELETE changes nothing. A
    // look an event brought forward reads what the event reported instead.
    if (!work.late && !work.follow.woken && follower.isJustWritten(work, kit)) {
      if ((await sendDelete(() => kit.cs.deleteCluster(clusterId))) === 'accepted') {
        this.status.watch(clusterId);
        return follower.paceDeleteLook(work, kit, target, 'deleting', DELETE_ACCEPTED);
      }
      // Gone under its id, or busy: the look below reads what CS holds under the id and the name.
    }
    const { arm } = work;
    const [byId, byName] = await Promise.all([
      this.status.observe(clusterId),
      this.status.observeNamed({
        subscriptionId: arm.subscriptionId,
        resourceGroupName: arm.resourceGroupName,
        resourceName: arm.clusterName,
      }),
    ]);
    const held = new Map<string, string>();
    if (byId.observation.found) held.set(clusterId, byId.observation.status.state);
    for (const c of byName.clusters) held.set(c.id, c.status?.state ?? 'unknown');
    if (held.size === 0) {
      this.status.unwatch(clusterId);
      return hooks.gone();
    }
    this.status.watch(clusterId);
    const state = held.get(clusterId) ?? 'gone';
    const description = byId.observation.found ? byId.observation.status.description || state : 'not found';
    if (work.late) return follower.apply(work, kit, { kind: 'keep' }, state, description, byId.requestedAt);
    const others = [...held.keys()].filter((id) => id !== clusterId);
    if (others.length > 0)
      work.logger.warn('Clusters Service still holds clusters of this resource; deleting them too', { csClusterIds: others });
    const answers = new Set<string>();
    for (const [id, csState] of held) if (csState !== UNINSTALLING) answers.add(await sendDelete(() => kit.cs.deleteCluster(id)));
    const accepted = answers.has('accepted');
    const note = answers.has('busy') ? DELETE_BUSY : accepted ? DELETE_ACCEPTED : `CS ${state}`;
    return follower.paceDeleteLook(work, kit, target, accepted ? 'deleting' : state, note, byId.requestedAt);
  }
}

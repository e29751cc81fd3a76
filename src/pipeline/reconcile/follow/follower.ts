import { TerminalError } from '../../../domain/errors';
import { isClusterResource } from '../../../domain/resource-types';
import { isTerminal } from '../../../domain/statuses';
import { mapClusterStatus, mapNodePoolStatus, type CsObservation, type StatusDecision } from '../../../domain/cs-mapping';
import type { CsClusterStatus } from '../../../domain/types.generated';
import { parseCsHref } from '../../../domain/ids';
import { PIPELINE_EVENTS } from '../../events';
import { alignToTick, nextFollow } from './schedule';
import type { OperationWork, ProcessorKit, ProcessorTools } from '../processor';
import { Outcome, again, ended } from '../../queue/outcome';
import { FirstCheckLearner } from './first-check-learner';
import { isConflict } from '../../../clusters-service';
import { ClusterStatusBatcher, type TimedObservation } from './cluster-status-batcher';
import { wakeStates } from './wake-states';

/** The note of a Delete's look whose DELETE CS accepted (the object is still there). */
const DELETE_ACCEPTED = 'delete requested';
/** The note of a Delete's look whose DELETE CS refused for now (409). */
const DELETE_BUSY = 'Clusters Service refused the DELETE for now';
/** The cluster state in which CS is already deleting it: a DELETE would change nothing. */
const UNINSTALLING = 'uninstalling';

/**
 * The status follow shared by every processor that waits on Clusters Service: one status read,
 * the mapping decision (domain/cs-mapping), the write-back, and when to look again (first check
 * learned per kind of operation, then backing off to the configured ceiling while nothing moves).
 * Each check records what it watches (`work.follow.watch`) so that a Clusters Service event can
 * bring the next one forward; while such events flow, the follow's own checks are only a safety net
 * and wait at least `csEvents.followDelayMs`.
 */
export class Follower {
  /** Cluster status reads, shared between followers (one call for many clusters). */
  readonly clusterStatus: ClusterStatusBatcher;
  /** When to check Clusters Service first after a dispatch, learned per kind of operation. */
  private readonly firstCheck: FirstCheckLearner;

  constructor(private readonly tools: ProcessorTools) {
    const { follow } = tools;
    this.clusterStatus = new ClusterStatusBatcher(tools.cs, { windowMs: follow.batchWindowMs, now: () => tools.clock.now() });
    this.firstCheck = new FirstCheckLearner({
      hitRatio: follow.firstCheckHitRatio,
      startMs: Math.max(follow.initialDelayMs, follow.maxDelayMs / 2),
      minMs: follow.initialDelayMs,
      maxMs: follow.maxDelayMs,
    });
  }

  /**
   * How young a Delete is when its look sends the DELETE without reading first: it was written
   * moments ago, so this is the look that dispatches it (reaction time, and a short backlog).
   */
  private get justWrittenMs(): number {
    return 4 * this.tools.follow.initialDelayMs;
  }

  /** Shortest delay before looking at Clusters Service again (after an unknown outcome, say). */
  get shortestDelayMs(): number {
    return this.tools.follow.initialDelayMs;
  }

  /**
   * Right after this instance dispatched the operation to Clusters Service: the delay of the first
   * status check (learned for its kind). Checks after a miss start from it again: a miss of a
   * delay most operations of the kind finish within is one of the long ones. Cluster checks are aligned to the batch tick (their reads are shared).
   */
  firstCheckAfterDispatch(work: OperationWork, kit: ProcessorKit, href?: string): number {
    const kind = followKind(work);
    const delayMs = this.firstCheck.delayMs(kind);
    if (href) this.watch(work, href);
    Object.assign(work.follow, {
      firstCheckOf: kind,
      unchanged: 0,
      baseDelayMs: Math.max(this.tools.follow.initialDelayMs, delayMs),
      // Reads sent before the dispatch answered say nothing about what it started.
      lastCheckAt: kit.clock.now(),
    });
    kit.events.emit({ type: PIPELINE_EVENTS.followFirstCheck, kind, delayMs });
    const paced = this.stretched(delayMs);
    return isClusterResource(work.resource) ? this.onBatchTick(kit, paced) : paced;
  }

  async cluster(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId } = parseCsHref(href);
    this.watch(work, href);
    const decide = (observation: CsObservation<CsClusterStatus>): StatusDecision =>
      mapClusterStatus({ request: work.op.request, current: work.op.status, observation });
    // A read made for another follower since our last check saves a call when it shows the end, or is
    // as recent as our shortest delay anyway — but not on a look an event brought forward: a read made
    // before the event says nothing of the end the event reports, and keeping on it would leave the
    // operation to the safety-net delay.
    let timed = this.clusterStatus.latest(clusterId, work.follow.lastCheckAt);
    const stale = (t: TimedObservation): boolean =>
      work.follow.woken === true || kit.clock.now() - t.requestedAt > this.tools.follow.initialDelayMs;
    if (timed && !isFinal(decide(timed.observation)) && stale(timed)) timed = undefined;
    timed ??= await this.clusterStatus.observe(clusterId);
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
    if (isFinal(decision)) this.clusterStatus.unwatch(clusterId);
    else this.clusterStatus.watch(clusterId);
    const state = observation.found ? observation.status.state : 'gone';
    const description = observation.found ? observation.status.description || observation.status.state : 'not found';
    const outcome = await this.apply(work, kit, decision, state, description, timed.requestedAt);
    return outcome.kind === 'again' && outcome.afterMs > 0 ? again(this.onBatchTick(kit, outcome.afterMs), outcome.note) : outcome;
  }

  async nodePool(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId, nodePoolId } = parseCsHref(href);
    if (!nodePoolId) throw new TerminalError(`${href} is not a node pool href`);
    this.watch(work, href);
    const observation = await kit.cs.observeNodePoolStatus(clusterId, nodePoolId);
    const decision = mapNodePoolStatus({ request: work.op.request, current: work.op.status, observation });
    const state = observation.found ? observation.status.state.node_pool_state_value : 'gone';
    const description = observation.found ? observation.status.message || state : 'not found';
    return this.apply(work, kit, decision, state, description);
  }

  /** Writes what the decision says and paces the next look. */
  async apply(
    work: OperationWork,
    kit: ProcessorKit,
    decision: StatusDecision,
    state: string,
    description: string,
    observedAt?: number,
  ): Promise<Outcome> {
    const now = kit.clock.now();
    const previousCheck = work.follow.lastCheckAt;
    // Back to quick checks only when what we write changes (Accepted → Provisioning …), not on every
    // intermediate CS state (pending → validating): that keeps Clusters Service calls per operation low.
    const progress = decision.kind === 'set' ? decision.status : decision.kind === 'keep' ? work.op.status : decision.kind;
    const next = nextFollow(this.tools.follow, work.follow, progress);
    // CS is working (or moved): an event will say when it is done. Anything else is retried at the follow's own pace.
    if (decision.kind === 'keep' || decision.kind === 'set') next.delayMs = this.stretched(next.delayMs);
    const firstCheckOf = work.follow.firstCheckOf;
    // A check an event brought forward finds CS done by construction: it says nothing of how long CS takes.
    if (firstCheckOf !== undefined && !work.follow.woken) {
      this.firstCheck.record(firstCheckOf, isFinal(decision));
      kit.events.emit({ type: PIPELINE_EVENTS.followFirstCheck, kind: firstCheckOf, delayMs: this.firstCheck.delayMs(firstCheckOf) });
    }
    work.follow.firstCheckOf = undefined;
    work.follow.woken = undefined;
    const since = work.follow.csState === state ? work.follow.csStateSince : (observedAt ?? now);
    Object.assign(work.follow, next.state, {
      lastDescription: description,
      lastCheckAt: observedAt ?? now,
      csState: state,
      csStateSince: since,
    });
    const completed = (): void => {
      // CS became final at most this long ago: the gap since the previous check that saw it otherwise.
      if (previousCheck !== undefined)
        kit.events.emit({ type: PIPELINE_EVENTS.followCompleted, request: work.op.request, lagMs: now - previousCheck });
    };
    switch (decision.kind) {
      case 'set': {
        await kit.writeBack(work.op, { status: decision.status, error: decision.error ?? null }, work.resource);
        if (!isTerminal(decision.status)) return again(next.delayMs, `CS ${state}`);
        completed();
        return ended(decision.status);
      }
      case 'deleted':
        await kit.writeBack(work.op, { status: 'Succeeded', error: null, deleteResource: true }, work.resource);
        completed();
        return ended('Succeeded', 'deleted');
      case 'keep':
        return again(next.delayMs, `CS ${state}`);
      case 'retry-later':
        return again(next.delayMs, decision.reason);
      case 'need-inflight-checks':
        return again(next.delayMs, 'inflight checks not readable yet');
    }
  }

  /**
   * A Delete's look at an object with a CS id: the DELETE itself (idempotent) is the observation, on
   * every look, so the decision depends on the documents and Clusters Service alone, never on what
   * this instance remembers. 404 → the object is gone: `gone` ends the Delete. Accepted → CS holds the
   * object and is deleting it (a DELETE while it already uninstalls changes nothing): the look is
   * paced like any status check (the first one of this instance like a first check after a dispatch). 409 → CS will not take the DELETE now (an
   * object busy elsewhere): look again later. A status read would only choose between these, so
   * none is made, except on the last look past the deadline (`work.late`): there the status is read
   * instead (`read`), so that the deadline's failure says what CS last reported.
   */
  async deleteLook(
    work: OperationWork,
    kit: ProcessorKit,
    href: string,
    hooks: {
      send: () => Promise<{ alreadyGone: boolean }>;
      gone: () => Promise<Outcome>;
      read: () => Promise<{ found: false } | { found: true; state: string; description: string }>;
    },
  ): Promise<Outcome> {
    this.watch(work, href);
    if (work.late) {
      const o = await hooks.read();
      if (!o.found) return hooks.gone();
      return this.apply(work, kit, { kind: 'keep' }, o.state, o.description);
    }
    const answer = await sendDelete(hooks.send);
    if (answer === 'gone') return hooks.gone();
    return this.paceDeleteLook(work, kit, href, 'deleting', answer === 'busy' ? DELETE_BUSY : DELETE_ACCEPTED, false);
  }

  /**
   * A cluster Delete's look: one read of everything Clusters Service holds for the resource — the
   * cluster on the documents (by id) and anything under the resource's ARM name (a create whose
   * answer was lost, a cluster made outside opstream) — riding in the shared status call; then a
   * DELETE to each one CS is not already uninstalling (idempotent). Nothing left → `gone`. The decision rests on what CS lists on this look, never on what this
   * instance remembers, and while the clusters uninstall a look costs a share of one call: the DELETE
   * is sent once, and the closing search by name is that same read. Past the deadline (`work.late`)
   * nothing is sent: the failure says what CS last reported.
   */
  async clusterDeleteLook(work: OperationWork, kit: ProcessorKit, href: string, hooks: { gone: () => Promise<Outcome> }): Promise<Outcome> {
    const { clusterId } = parseCsHref(href);
    this.watch(work, href);
    // Just written by the frontend, which never calls CS: nobody has asked CS to delete the cluster
    // yet, so a read would only say what is known. The DELETE goes out at once; if it finds the
    // cluster there, the looks after it read (by id and by name) as below. Decided from the
    // Operation's age, not from what this instance remembers: a repeated DELETE changes nothing. A
    // look an event brought forward reads what the event reported instead.
    if (!work.late && !work.follow.woken && kit.clock.now() - Date.parse(work.op.startTime) < this.justWrittenMs) {
      if ((await sendDelete(() => kit.cs.deleteCluster(clusterId))) === 'accepted') {
        this.clusterStatus.watch(clusterId);
        return this.paceDeleteLook(work, kit, href, 'deleting', DELETE_ACCEPTED, true);
      }
      // Gone under its id, or busy: the look below reads what CS holds under the id and the name.
    }
    const { arm } = work;
    const [byId, byName] = await Promise.all([
      this.clusterStatus.observe(clusterId),
      this.clusterStatus.observeNamed({
        subscriptionId: arm.subscriptionId,
        resourceGroupName: arm.resourceGroupName,
        resourceName: arm.clusterName,
      }),
    ]);
    const held = new Map<string, string>();
    if (byId.observation.found) held.set(clusterId, byId.observation.status.state);
    for (const c of byName.clusters) held.set(c.id, c.status?.state ?? 'unknown');
    if (held.size === 0) {
      this.clusterStatus.unwatch(clusterId);
      return hooks.gone();
    }
    this.clusterStatus.watch(clusterId);
    const state = held.get(clusterId) ?? 'gone';
    const description = byId.observation.found ? byId.observation.status.description || state : 'not found';
    if (work.late) return this.apply(work, kit, { kind: 'keep' }, state, description, byId.requestedAt);
    const others = [...held.keys()].filter((id) => id !== clusterId);
    if (others.length > 0)
      work.logger.warn('Clusters Service still holds clusters of this resource; deleting them too', { csClusterIds: others });
    const answers = new Set<string>();
    for (const [id, csState] of held) if (csState !== UNINSTALLING) answers.add(await sendDelete(() => kit.cs.deleteCluster(id)));
    const accepted = answers.has('accepted');
    const note = answers.has('busy') ? DELETE_BUSY : accepted ? DELETE_ACCEPTED : `CS ${state}`;
    return this.paceDeleteLook(work, kit, href, accepted ? 'deleting' : state, note, true, byId.requestedAt);
  }

  /**
   * Paces the look after a Delete's DELETE: this instance's first look waits like a first check after
   * a dispatch, the later ones like any status check (cluster looks on the batch tick, `onTick`).
   */
  private async paceDeleteLook(
    work: OperationWork,
    kit: ProcessorKit,
    href: string,
    state: string,
    note: string,
    onTick: boolean,
    observedAt?: number,
  ): Promise<Outcome> {
    if (work.follow.lastCheckAt === undefined) return again(this.firstCheckAfterDispatch(work, kit, href), note);
    const outcome = await this.apply(work, kit, { kind: 'keep' }, state, note, observedAt);
    if (outcome.kind !== 'again') return outcome;
    return again(onTick ? this.onBatchTick(kit, outcome.afterMs) : outcome.afterMs, note);
  }

  /** Records what this follow reads, so that an event about it can wake the operation. */
  private watch(work: OperationWork, href: string): void {
    const kind = parseCsHref(href).nodePoolId === undefined ? 'cluster' : 'nodePool';
    work.follow.watch = { href, wakeOn: wakeStates(kind, work.op.request) };
  }

  /** While Clusters Service events flow, the follow's own checks are a safety net: at least `followDelayMs` apart. */
  private stretched(delayMs: number): number {
    const events = this.tools.csEvents;
    return events && delayMs > 0 && events.flowing() ? Math.max(delayMs, events.followDelayMs) : delayMs;
  }

  /** A cluster check's delay moved onto the shared tick, so reads due together share one call. */
  private onBatchTick(kit: ProcessorKit, delayMs: number): number {
    const { batchTickMs, maxDelayMs } = this.tools.follow;
    return alignToTick(delayMs, kit.clock.now(), batchTickMs, maxDelayMs);
  }
}

/** Kind of operation as the first-check learner keys it, e.g. `nodePools/Update`. */
function followKind(work: OperationWork): string {
  const type = work.resource.resourceType;
  return `${type.slice(type.lastIndexOf('/') + 1)}/${work.op.request}`;
}

/** CS reached a final state: what the first check after a dispatch hopes to find. */
function isFinal(decision: StatusDecision): boolean {
  return decision.kind === 'deleted' || (decision.kind === 'set' && isTerminal(decision.status));
}

/** What an (idempotent) DELETE answered: CS took it, the object was already gone (404), or CS refused it for now (409). */
async function sendDelete(send: () => Promise<{ alreadyGone: boolean }>): Promise<'accepted' | 'gone' | 'busy'> {
  try {
    return (await send()).alreadyGone ? 'gone' : 'accepted';
  } catch (err) {
    if (!isConflict(err)) throw err;
    return 'busy';
  }
}

import {
  DELETE_ACCEPTED,
  DELETE_BUSY,
  again,
  isFinal,
  isNodePoolResource,
  mapNodePoolStatus,
  sendDelete,
  parseCsHref,
  TerminalError,
  wakeStates,
  type CsNodePool,
  type CsNodePoolStatus,
  type CsObservation,
  type Follower,
  type FollowTarget,
  type OperationRequest,
  type OperationWork,
  type Outcome,
  type ProcessorKit,
  type ProcessorTools,
  type StatusDecision,
} from '../../src/kit';
import { lastSentAt, sendDifference } from '../kit/send-difference';
import { SharedReads, wholeGroupSource, type SharedRead } from '../kit/shared-reads';
import { UpdateCooldown } from '../kit/update-cooldown';
import { heldNodePool, nodePoolDifference } from './desired-state';

/** The node pool state in which CS is already deleting it: a DELETE would change nothing. */
const UNINSTALLING = 'uninstalling';
/** The node pool states in which an operation fails (domain/cs-mapping). */
const NODE_POOL_ERROR_STATES = ['error', 'recoverable_error'] as const;

/** What a node pool operation's follow reads: the node pool, in its cluster's shared read when `batched`. */
export function nodePoolTarget(href: string, request: OperationRequest, batched = false): FollowTarget {
  return { href, wakeOn: wakeStates(request, NODE_POOL_ERROR_STATES), ...(batched && { batched: true }) };
}

/** What a look found of a node pool: its status (the input of `mapNodePoolStatus`), the node pool when it was read whole, and when the call was sent. */
export interface NodePoolRead {
  readonly observation: CsObservation<CsNodePoolStatus>;
  readonly nodePool?: CsNodePool;
  /** When the call that made it was sent (absent: just now). */
  readonly requestedAt?: number;
}

/**
 * How a node pool operation looks at Clusters Service: its status (`installing` → Provisioning,
 * `updating` → Updating, `ready` → Succeeded, `error`/`recoverable_error` → Failed with CS's message).
 * With batching on (`follow.batchWindowMs` > 0) the looks share reads: Clusters Service lists node
 * pools under their cluster only, whole (`GET /clusters/{id}/node_pools`, no search), so every node
 * pool of one cluster due within the window, and every other one of that cluster being followed, is
 * read by one call per cluster per tick (SharedReads), and a look that finds its node pool read for
 * another since its own last check makes no call. With batching off each look is a call of its own.
 * What to write and when to look again is the shared follow's (`Follower`).
 */
export class NodePoolLooks {
  /** At most one PATCH per node pool per `follow.updateCooldownMs`, dispatch and follow alike. */
  readonly cooldown: UpdateCooldown;
  /** Node pool reads, shared between the looks at node pools of one cluster (one list call per cluster). */
  readonly reads: SharedReads<CsNodePool>;

  constructor(
    readonly follower: Follower,
    tools: Pick<ProcessorTools, 'clock' | 'follow' | 'cs'>,
  ) {
    this.cooldown = new UpdateCooldown(tools.follow.updateCooldownMs, () => tools.clock.now());
    const { cs } = tools;
    this.reads = new SharedReads<CsNodePool>(
      wholeGroupSource({
        kind: 'node pool',
        listAll: (clusterId) => cs.listNodePools(clusterId),
        observeOne: (clusterId, id) => cs.observeNodePool(clusterId, id),
        idOf: (np) => np.id,
      }),
      { windowMs: tools.follow.batchWindowMs, now: () => tools.clock.now() },
    );
  }

  /** What a node pool operation's follow reads: the node pool (in the shared read when batching). */
  target(href: string, request: OperationRequest): FollowTarget {
    return nodePoolTarget(href, request, this.reads.batching);
  }

  /**
   * A Create's look reads the node pool's status; an Update's reads the node pool itself (its status
   * embedded), so that `ready` is Succeeded only once the node pool holds the Resource's desired
   * state, and a difference left is sent again (once the cooldown allows). Batched, both are a share
   * of the cluster's node pool list, which carries the node pool whole.
   */
  async statusLook(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId, nodePoolId } = parseCsHref(href);
    if (!nodePoolId) throw new TerminalError(`${href} is not a node pool href`);
    const target = this.target(href, work.op.request);
    this.follower.watch(work, target);
    // Batched looks wake on the shared tick, so the looks at one cluster's node pools share a call.
    const paced = (outcome: Outcome): Outcome => (target.batched ? this.follower.onTick(outcome, kit) : outcome);
    const decide = (observation: CsObservation<CsNodePoolStatus>): StatusDecision =>
      mapNodePoolStatus({ request: work.op.request, current: work.op.status, observation });
    const read = await this.look(work, kit, clusterId, nodePoolId, { whole: work.op.request === 'Update', decide });
    const { observation } = read;
    const decision = decide(observation);
    const state = observation.found ? observation.status.state.node_pool_state_value : 'gone';
    const description = observation.found ? observation.status.message || state : 'not found';
    if (read.nodePool && work.op.request === 'Update' && decision.kind === 'set' && decision.status === 'Succeeded') {
      const { resource } = work;
      const patch = isNodePoolResource(resource) ? nodePoolDifference(resource.properties, read.nodePool) : undefined;
      const resendAfter = lastSentAt(work, kit);
      const sent = await sendDifference(work, kit, { href, patch, cooldown: this.cooldown, resendAfter }, (p) =>
        kit.cs.updateNodePool(clusterId, nodePoolId, p),
      );
      const keep = async (note: string, atLeastMs = 0): Promise<Outcome> => {
        const outcome = await this.follower.apply(work, kit, { kind: 'keep' }, state, note, read.requestedAt);
        return outcome.kind === 'again' ? again(Math.max(outcome.afterMs, atLeastMs), note) : outcome;
      };
      switch (sent.kind) {
        case 'refused':
          return sent.outcome;
        case 'sent':
          this.reads.watch(clusterId, nodePoolId);
          return again(this.follower.firstCheckAfterDispatch(work, kit, target), 'difference sent again');
        case 'cooling':
          return paced(await keep('ready, not yet at the desired state: waiting for the update cooldown', sent.afterMs));
        case 'busy':
          return paced(await keep('ready, not yet at the desired state: Clusters Service refused the PATCH for now'));
        case 'same':
          break;
      }
    }
    if (isFinal(decision)) this.reads.unwatch(clusterId, nodePoolId);
    else this.reads.watch(clusterId, nodePoolId);
    // A success read whole leaves its record on the Resource: the next Update sends its difference without reading first.
    const recorded =
      decision.kind === 'set' && decision.status === 'Succeeded' && read.nodePool
        ? { ...decision, observed: heldNodePool(read.nodePool) }
        : decision;
    return paced(await this.follower.apply(work, kit, recorded, state, description, read.requestedAt));
  }

  /**
   * What this look knows of the node pool. Batched: a shared read made for another look since this
   * follow's last check, when it shows the end or is as recent as the shortest delay anyway (never on
   * a look an event brought forward: a read made before the event says nothing of what it reports);
   * otherwise a share of the next shared read. Not batched: one call, the node pool itself (`whole`,
   * one `GET` with its status embedded) or its status.
   */
  private async look(
    work: OperationWork,
    kit: ProcessorKit,
    clusterId: string,
    nodePoolId: string,
    how: { whole: boolean; decide?: (o: CsObservation<CsNodePoolStatus>) => StatusDecision },
  ): Promise<NodePoolRead> {
    if (!this.reads.batching) {
      const read = how.whole ? await this.observeNodePool(kit, clusterId, nodePoolId) : undefined;
      return read ?? { observation: await kit.cs.observeNodePoolStatus(clusterId, nodePoolId) };
    }
    const shared = this.reads.latest(clusterId, nodePoolId, work.follow.lastCheckAt);
    if (shared) {
      const seen = nodePoolReadOf(shared);
      const fresh = !work.follow.woken && kit.clock.now() - shared.requestedAt <= this.follower.shortestDelayMs;
      if (seen && (fresh || (how.decide && isFinal(how.decide(seen.observation))))) return seen;
    }
    return this.sharedRead(kit, clusterId, nodePoolId);
  }

  /** The node pool as a shared read made after `since` (ms) saw it, if any. */
  latestRead(clusterId: string, nodePoolId: string, since: number): NodePoolRead | undefined {
    const shared = this.reads.latest(clusterId, nodePoolId, since);
    return shared && nodePoolReadOf(shared);
  }

  /**
   * A share of the next shared read of the node pool's cluster (one call when not batching); a node
   * pool listed without a status (a service that does not embed it) is read by its status call.
   */
  async sharedRead(kit: ProcessorKit, clusterId: string, nodePoolId: string): Promise<NodePoolRead> {
    const shared = await this.reads.read(clusterId, nodePoolId);
    return (
      nodePoolReadOf(shared) ?? {
        observation: await kit.cs.observeNodePoolStatus(clusterId, nodePoolId),
        ...(shared.item && { nodePool: shared.item }),
      }
    );
  }

  /**
   * The node pool and its status from one `GET …/node_pools/{id}`; undefined when it comes without a
   * status (a service that does not embed it): the status call then answers.
   */
  async observeNodePool(kit: ProcessorKit, clusterId: string, nodePoolId: string): Promise<NodePoolRead | undefined> {
    const read = await kit.cs.observeNodePool(clusterId, nodePoolId);
    return nodePoolReadOf({ item: read.found ? read.status : undefined });
  }

  /**
   * A Delete's look, decided from one read of the node pool: gone (404, its cluster's too) → `gone`;
   * uninstalling → CS is deleting it, the look only paces the next one; any other state → a DELETE
   * (idempotent), sent once rather than on every look. A Delete just written sends its DELETE without
   * reading first: nobody has asked CS yet (decided from the Operation's age, never from this
   * instance's memory; a look an event brought forward reads what the event reported instead). While
   * CS uninstalls it, a look costs a share of the cluster's shared node pool read (batching on). Past
   * the deadline (`work.late`) nothing is sent: the failure says what CS last reported.
   */
  async deleteLook(work: OperationWork, kit: ProcessorKit, href: string, hooks: { gone: () => Promise<Outcome> }): Promise<Outcome> {
    const { clusterId, nodePoolId } = parseCsHref(href);
    if (!nodePoolId) throw new TerminalError(`${href} is not a node pool href`);
    const target = this.target(href, work.op.request);
    const { follower } = this;
    follower.watch(work, target);
    const send = (): Promise<'accepted' | 'gone' | 'busy'> => sendDelete(() => kit.cs.deleteNodePool(clusterId, nodePoolId));
    const gone = (): Promise<Outcome> => {
      this.reads.unwatch(clusterId, nodePoolId);
      return hooks.gone();
    };
    if (!work.late && !work.follow.woken && follower.isJustWritten(work, kit)) {
      const answer = await send();
      if (answer === 'gone') return gone();
      if (answer === 'accepted') {
        this.reads.watch(clusterId, nodePoolId);
        return follower.paceDeleteLook(work, kit, target, 'deleting', DELETE_ACCEPTED);
      }
      // Busy (409): the look below reads what CS holds.
    }
    const { observation, requestedAt } = await this.look(work, kit, clusterId, nodePoolId, {
      whole: false,
      decide: (o) => (o.found ? { kind: 'keep' } : { kind: 'deleted' }),
    });
    if (!observation.found) return gone();
    this.reads.watch(clusterId, nodePoolId);
    const state = observation.status.state.node_pool_state_value;
    const description = observation.status.message || state;
    if (work.late) return follower.apply(work, kit, { kind: 'keep' }, state, description, requestedAt);
    if (state === UNINSTALLING) return follower.paceDeleteLook(work, kit, target, state, `CS ${state}`, requestedAt);
    const answer = await send();
    if (answer === 'gone') return gone();
    return follower.paceDeleteLook(work, kit, target, 'deleting', answer === 'busy' ? DELETE_BUSY : DELETE_ACCEPTED, requestedAt);
  }
}

/** What a node pool (as read, or absent: gone) says of itself; undefined when it carries no status. */
function nodePoolReadOf(read: Pick<SharedRead<CsNodePool>, 'item'> & { requestedAt?: number }): NodePoolRead | undefined {
  const at = read.requestedAt === undefined ? {} : { requestedAt: read.requestedAt };
  const np = read.item;
  if (!np) return { observation: { found: false }, ...at };
  const status = np.status;
  if (!status?.state) return undefined;
  const { current_replicas, message } = status;
  return {
    nodePool: np,
    ...at,
    observation: {
      found: true,
      status: {
        kind: 'NodePoolStatus',
        id: np.id,
        href: `${np.href}/status`,
        state: status.state,
        ...(current_replicas !== undefined && { current_replicas }),
        ...(message !== undefined && { message }),
      },
    },
  };
}

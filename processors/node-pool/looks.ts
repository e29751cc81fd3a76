import {
  DELETE_ACCEPTED,
  DELETE_BUSY,
  again,
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
} from '../../src/kit';
import { lastSentAt, sendDifference } from '../kit/send-difference';
import { UpdateCooldown } from '../kit/update-cooldown';
import { nodePoolDifference } from './desired-state';

/** The node pool state in which CS is already deleting it: a DELETE would change nothing. */
const UNINSTALLING = 'uninstalling';
/** The node pool states in which an operation fails (domain/cs-mapping). */
const NODE_POOL_ERROR_STATES = ['error', 'recoverable_error'] as const;

/** What a node pool operation's follow reads: the node pool, one status call per look. */
export function nodePoolTarget(href: string, request: OperationRequest): FollowTarget {
  return { href, wakeOn: wakeStates(request, NODE_POOL_ERROR_STATES) };
}

/**
 * How a node pool operation looks at Clusters Service: its status (`installing` → Provisioning,
 * `updating` → Updating, `ready` → Succeeded, `error`/`recoverable_error` → Failed with CS's message).
 * What to write and when to look again is the shared follow's (`Follower`).
 */
export class NodePoolLooks {
  /** At most one PATCH per node pool per `follow.updateCooldownMs`, dispatch and follow alike. */
  readonly cooldown: UpdateCooldown;

  constructor(
    readonly follower: Follower,
    tools: Pick<ProcessorTools, 'clock' | 'follow'>,
  ) {
    this.cooldown = new UpdateCooldown(tools.follow.updateCooldownMs, () => tools.clock.now());
  }

  /**
   * A Create's look reads the node pool's status; an Update's reads the node pool itself (one call,
   * its status embedded), so that `ready` is Succeeded only once the node pool holds the Resource's
   * desired state, and a difference left is sent again (once the cooldown allows).
   */
  async statusLook(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId, nodePoolId } = parseCsHref(href);
    if (!nodePoolId) throw new TerminalError(`${href} is not a node pool href`);
    this.follower.watch(work, nodePoolTarget(href, work.op.request));
    const read = work.op.request === 'Update' ? await this.observeNodePool(kit, clusterId, nodePoolId) : undefined;
    const observation = read?.observation ?? (await kit.cs.observeNodePoolStatus(clusterId, nodePoolId));
    const decision = mapNodePoolStatus({ request: work.op.request, current: work.op.status, observation });
    const state = observation.found ? observation.status.state.node_pool_state_value : 'gone';
    const description = observation.found ? observation.status.message || state : 'not found';
    if (read?.nodePool && decision.kind === 'set' && decision.status === 'Succeeded') {
      const { resource } = work;
      const patch = isNodePoolResource(resource) ? nodePoolDifference(resource.properties, read.nodePool) : undefined;
      const resendAfter = lastSentAt(work, kit);
      const sent = await sendDifference(work, kit, { href, patch, cooldown: this.cooldown, resendAfter }, (p) =>
        kit.cs.updateNodePool(clusterId, nodePoolId, p),
      );
      const keep = async (note: string, atLeastMs = 0): Promise<Outcome> => {
        const outcome = await this.follower.apply(work, kit, { kind: 'keep' }, state, note);
        return outcome.kind === 'again' ? again(Math.max(outcome.afterMs, atLeastMs), note) : outcome;
      };
      switch (sent.kind) {
        case 'refused':
          return sent.outcome;
        case 'sent':
          return again(this.follower.firstCheckAfterDispatch(work, kit, nodePoolTarget(href, work.op.request)), 'difference sent again');
        case 'cooling':
          return keep('ready, not yet at the desired state: waiting for the update cooldown', sent.afterMs);
        case 'busy':
          return keep('ready, not yet at the desired state: Clusters Service refused the PATCH for now');
        case 'same':
          break;
      }
    }
    return this.follower.apply(work, kit, decision, state, description);
  }

  /**
   * The node pool and its status from one `GET …/node_pools/{id}`; undefined when it comes without a
   * status (a service that does not embed it): the status call then answers.
   */
  async observeNodePool(
    kit: ProcessorKit,
    clusterId: string,
    nodePoolId: string,
  ): Promise<{ observation: CsObservation<CsNodePoolStatus>; nodePool?: CsNodePool } | undefined> {
    const read = await kit.cs.observeNodePool(clusterId, nodePoolId);
    if (!read.found) return { observation: { found: false } };
    const status = read.status.status;
    if (!status?.state) return undefined;
    const { current_replicas, message } = status;
    return {
      nodePool: read.status,
      observation: {
        found: true,
        status: {
          kind: 'NodePoolStatus',
          id: read.status.id,
          href: `${read.status.href}/status`,
          state: status.state,
          ...(current_replicas !== undefined && { current_replicas }),
          ...(message !== undefined && { message }),
        },
      },
    };
  }

  /**
   * A Delete's look, decided from one read of the node pool: gone (404, its cluster's too) → `gone`;
   * uninstalling → CS is deleting it, the look only paces the next one; any other state → a DELETE
   * (idempotent), sent once rather than on every look. A Delete just written sends its DELETE without
   * reading first: nobody has asked CS yet (decided from the Operation's age, never from this
   * instance's memory; a look an event brought forward reads what the event reported instead). Past
   * the deadline (`work.late`) nothing is sent: the failure says what CS last reported.
   */
  async deleteLook(work: OperationWork, kit: ProcessorKit, href: string, hooks: { gone: () => Promise<Outcome> }): Promise<Outcome> {
    const { clusterId, nodePoolId } = parseCsHref(href);
    if (!nodePoolId) throw new TerminalError(`${href} is not a node pool href`);
    const target = nodePoolTarget(href, work.op.request);
    const { follower } = this;
    follower.watch(work, target);
    const send = (): Promise<'accepted' | 'gone' | 'busy'> => sendDelete(() => kit.cs.deleteNodePool(clusterId, nodePoolId));
    if (!work.late && !work.follow.woken && follower.isJustWritten(work, kit)) {
      const answer = await send();
      if (answer === 'gone') return hooks.gone();
      if (answer === 'accepted') return follower.paceDeleteLook(work, kit, target, 'deleting', DELETE_ACCEPTED);
      // Busy (409): the look below reads what CS holds.
    }
    const observation = await kit.cs.observeNodePoolStatus(clusterId, nodePoolId);
    if (!observation.found) return hooks.gone();
    const state = observation.status.state.node_pool_state_value;
    const description = observation.status.message || state;
    if (work.late) return follower.apply(work, kit, { kind: 'keep' }, state, description);
    if (state === UNINSTALLING) return follower.paceDeleteLook(work, kit, target, state, `CS ${state}`);
    const answer = await send();
    if (answer === 'gone') return hooks.gone();
    return follower.paceDeleteLook(work, kit, target, 'deleting', answer === 'busy' ? DELETE_BUSY : DELETE_ACCEPTED);
  }
}

import {
  DELETE_ACCEPTED,
  DELETE_BUSY,
  mapNodePoolStatus,
  sendDelete,
  parseCsHref,
  TerminalError,
  wakeStates,
  type Follower,
  type FollowTarget,
  type OperationRequest,
  type OperationWork,
  type Outcome,
  type ProcessorKit,
} from '../../src/kit';

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
  constructor(readonly follower: Follower) {}

  async statusLook(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId, nodePoolId } = parseCsHref(href);
    if (!nodePoolId) throw new TerminalError(`${href} is not a node pool href`);
    this.follower.watch(work, nodePoolTarget(href, work.op.request));
    const observation = await kit.cs.observeNodePoolStatus(clusterId, nodePoolId);
    const decision = mapNodePoolStatus({ request: work.op.request, current: work.op.status, observation });
    const state = observation.found ? observation.status.state.node_pool_state_value : 'gone';
    const description = observation.found ? observation.status.message || state : 'not found';
    return this.follower.apply(work, kit, decision, state, description);
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

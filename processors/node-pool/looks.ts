import {
  mapNodePoolStatus,
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
}

/**
 * Clusters Service state → operation status: pure decisions, table-tested. The caller observes CS
 * (status call, 404), asks here what to do, and performs the write (which itself skips no-ops).
 *
 * Deliberate rules (see reference "CS state → status"):
 * - `ready` during a Delete keeps Deleting: CS still reports ready while the uninstall starts.
 *   Likewise any in-progress state (pending … installing, updating) keeps a Delete at Deleting:
 *   a Delete only ever ends Succeeded (on 404) or Failed.
 * - A status the request cannot be in (domain/requests REQUEST_STATUSES, as the Operation schema
 *   ties them) keeps the current one: a Create whose cluster CS reports `updating` or `uninstalling`
 *   stays Provisioning, an Update whose cluster is `installing` stays Updating.
 * - 404 ends a Delete (the resource is gone); on anything else it means "not there (yet)": no write,
 *   retry later, and the operation's deadline eventually fails it.
 * - An unknown state is not guessed at: no write, retry later.
 * - A terminal operation never moves again.
 */
import type { ArmError, CsClusterStatus, CsInflightCheck, CsNodePoolStatus, OperationRequest, OperationStatus } from './types.generated';
import { clusterProvisionError, inflightChecksError, needsInflightChecks, nodePoolProvisionError } from './provision-errors';
import { canBeIn } from './requests';
import { isTerminal } from './statuses';

/** What CS said: the status object, or 404. */
export type CsObservation<S> = { readonly found: false } | { readonly found: true; readonly status: S };

export type StatusDecision =
  /** Move the operation (and resource) to `status`, with `error` when Failed. */
  | {
      readonly kind: 'set';
      readonly status: OperationStatus;
      readonly error?: ArmError;
      /** With Succeeded: what CS holds of the fields the processor sets, recorded on the Resource (`clustersServiceState`). */
      readonly observed?: object;
    }
  /** CS is still working; the current status stays. Poll again. */
  | { readonly kind: 'keep' }
  /** 404 on a Delete: delete the Resource document and mark the operation Succeeded. */
  | { readonly kind: 'deleted' }
  /** OCM4001: read `inflight_checks` and decide again with them. */
  | { readonly kind: 'need-inflight-checks' }
  /** Nothing can be concluded (404 outside a Delete, unknown state): no write, poll again later. */
  | { readonly kind: 'retry-later'; readonly reason: string };

export interface MappingInput<S> {
  readonly request: OperationRequest;
  /** The operation's current status. */
  readonly current: OperationStatus;
  readonly observation: CsObservation<S>;
}

export interface ClusterMappingInput extends MappingInput<CsClusterStatus> {
  /** The cluster's inflight checks, once read (only needed after `need-inflight-checks`). */
  readonly inflightChecks?: readonly CsInflightCheck[];
}

const KEEP: StatusDecision = Object.freeze({ kind: 'keep' });

/** The rules that do not depend on the CS state: terminal operations and 404. */
function precheck<S>(input: MappingInput<S>): { decision: StatusDecision } | { status: S } {
  if (isTerminal(input.current)) return { decision: KEEP };
  if (!input.observation.found) {
    return {
      decision: input.request === 'Delete' ? { kind: 'deleted' } : { kind: 'retry-later', reason: 'Clusters Service answered 404' },
    };
  }
  return { status: input.observation.status };
}

/** A table status, except that a Delete stays Deleting until 404 or error, and no request leaves its own statuses. */
function progress(request: OperationRequest, status: OperationStatus): StatusDecision {
  if (request === 'Delete' && status !== 'Deleting') return KEEP;
  return canBeIn(request, status) ? { kind: 'set', status } : KEEP;
}

export function mapClusterStatus(input: ClusterMappingInput): StatusDecision {
  const pre = precheck(input);
  if ('decision' in pre) return pre.decision;
  const status = pre.status;
  switch (status.state) {
    case 'pending':
    case 'validating':
      return KEEP;
    case 'installing':
      return progress(input.request, 'Provisioning');
    case 'updating':
      return progress(input.request, 'Updating');
    case 'ready':
      return progress(input.request, 'Succeeded');
    case 'uninstalling':
      return progress(input.request, 'Deleting');
    case 'error':
      if (needsInflightChecks(status)) {
        if (input.inflightChecks === undefined) return { kind: 'need-inflight-checks' };
        return { kind: 'set', status: 'Failed', error: inflightChecksError(status, input.inflightChecks) };
      }
      return { kind: 'set', status: 'Failed', error: clusterProvisionError(status) };
    default:
      return { kind: 'retry-later', reason: `unknown cluster state "${status.state}"` };
  }
}

export function mapNodePoolStatus(input: MappingInput<CsNodePoolStatus>): StatusDecision {
  const pre = precheck(input);
  if ('decision' in pre) return pre.decision;
  const status = pre.status;
  const state = status.state.node_pool_state_value;
  switch (state) {
    case 'validating':
    case 'pending':
    case 'validating_update':
    case 'pending_update':
      return KEEP;
    case 'installing':
      return progress(input.request, 'Provisioning');
    case 'updating':
      return progress(input.request, 'Updating');
    case 'ready':
      return progress(input.request, 'Succeeded');
    case 'uninstalling':
      return progress(input.request, 'Deleting');
    case 'error':
    case 'recoverable_error':
      return { kind: 'set', status: 'Failed', error: nodePoolProvisionError(status) };
    default:
      return { kind: 'retry-later', reason: `unknown node pool state "${state}"` };
  }
}

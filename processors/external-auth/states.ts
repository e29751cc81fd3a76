import type { CsExternalAuth, CsObservation, OperationRequest, OperationStatus, StatusDecision } from '../../src/kit';

/**
 * The external auth state in which Clusters Service holds the configuration but waits for a client
 * secret the customer provides on the cluster: the RP's work is done (ARO-HCP ends it Succeeded).
 */
export const AWAITING_SECRET = 'awaiting_secret';
/** The external auth state in which CS is already deleting it. */
export const UNINSTALLING = 'uninstalling';
/** The state in which an external auth operation fails. */
export const EXTERNAL_AUTH_ERROR_STATES = ['error'] as const;

const KEEP: StatusDecision = Object.freeze({ kind: 'keep' });

/**
 * An external auth operation's decision from what CS reports (pure, table-tested):
 * - installing → Provisioning (a Create), updating → Updating (an Update); any other request keeps
 *   its status (a Create whose external auth is being updated stays Provisioning);
 * - ready and awaiting_secret → Succeeded; error → Failed with CS's message;
 * - a Delete stays Deleting until 404;
 * - 404 outside a Delete, or a state not known: no write, look again later;
 * - a terminal operation never moves.
 */
export function externalAuthDecision(
  request: OperationRequest,
  current: OperationStatus,
  observation: CsObservation<CsExternalAuth>,
): StatusDecision {
  if (current === 'Succeeded' || current === 'Failed' || current === 'Canceled') return KEEP;
  if (!observation.found)
    return request === 'Delete' ? { kind: 'deleted' } : { kind: 'retry-later', reason: 'Clusters Service answered 404' };
  // A Delete's looks (ExternalAuthLooks.deleteLook) send the DELETE again in any state but uninstalling.
  if (request === 'Delete') return KEEP;
  const state = observation.status.status?.state.value ?? '';
  if (state === 'error') {
    const message = observation.status.status?.message || 'External auth configuration failed';
    return { kind: 'set', status: 'Failed', error: { code: 'InternalServerError', message } };
  }
  switch (state) {
    case 'installing':
      return request === 'Create' ? { kind: 'set', status: 'Provisioning' } : KEEP;
    case 'updating':
      return request === 'Update' ? { kind: 'set', status: 'Updating' } : KEEP;
    case 'ready':
    case AWAITING_SECRET:
      return { kind: 'set', status: 'Succeeded' };
    case UNINSTALLING:
      return KEEP;
    default:
      return { kind: 'retry-later', reason: `unknown external auth state "${state}"` };
  }
}

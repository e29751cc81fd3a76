import type { CsObservation, KitBreakGlassCredential, OperationStatus, StatusDecision } from '../../src/kit';

/**
 * Break-glass credential states Clusters Service reports (clusters_mgmt BreakGlassCredential.status):
 * created, issued, expired, awaiting_revocation, revoked, failed. Credentials that still give access,
 * or may: a revocation is done only when none is left.
 */
const STILL_ACTIVE = new Set(['created', 'issued', 'awaiting_revocation']);

/**
 * A RequestCredential's decision from its credential: `created` → Provisioning (while CS issues it),
 * `issued` → Succeeded (the frontend serves the kubeconfig from CS; opstream never reads it), `failed`
 * → Failed; revoked, awaiting revocation, expired or gone before it was issued → Failed, saying so; an
 * unknown state → look again later. Pure.
 */
export function requestDecision(current: OperationStatus, observation: CsObservation<KitBreakGlassCredential>): StatusDecision {
  if (!observation.found) return failed('The credential no longer exists in Clusters Service');
  switch (observation.status.status) {
    case 'created':
      return current === 'Provisioning' ? { kind: 'keep' } : { kind: 'set', status: 'Provisioning' };
    case 'issued':
      return { kind: 'set', status: 'Succeeded' };
    case 'failed':
      return failed('Failed to provision cluster credential');
    case 'expired':
    case 'revoked':
    case 'awaiting_revocation':
      return failed(`The credential was ${observation.status.status.replace('_', ' ')} before it was issued`);
    default:
      return { kind: 'retry-later', reason: `credential state ${observation.status.status} not known` };
  }
}

/**
 * A RevokeCredentials' decision from the cluster's credentials: any `failed` → Failed; any still
 * active (created, issued, awaiting revocation) → keep Deleting; none → Succeeded. Pure.
 */
export function revokeDecision(credentials: readonly KitBreakGlassCredential[]): StatusDecision {
  if (credentials.some((c) => c.status === 'failed')) return failed('Failed to revoke cluster credential');
  const active = credentials.filter((c) => STILL_ACTIVE.has(c.status));
  return active.length > 0 ? { kind: 'keep' } : { kind: 'set', status: 'Succeeded' };
}

function failed(message: string): StatusDecision {
  return { kind: 'set', status: 'Failed', error: { code: 'InternalServerError', message } };
}

import {
  parseCsHref,
  TerminalError,
  type Follower,
  type FollowTarget,
  type OperationWork,
  type Outcome,
  type ProcessorKit,
} from '../../src/kit';
import { requestDecision, revokeDecision } from './states';

/** The credential states in which a RequestCredential ends (an event in one of them is worth a look at once). */
const REQUEST_ENDS = ['issued', 'failed', 'expired', 'revoked', 'awaiting_revocation'] as const;

/** The credential states in which a revocation of it is over (revoked, or failed). */
const REVOCATION_ENDS = ['revoked', 'expired', 'failed', 'deleted'] as const;

/** What a RequestCredential's follow reads: its break-glass credential. */
export function credentialTarget(href: string): FollowTarget {
  return { href, wakeOn: REQUEST_ENDS };
}

/**
 * How credential operations look at Clusters Service: a RequestCredential reads its own credential
 * (one call), a RevokeCredentials lists the cluster's (one call); what to write and when to look
 * again is the shared follow's. A credential's kubeconfig is never read from these answers, kept,
 * logged or written: only its id, href and state are.
 */
export class CredentialLooks {
  constructor(readonly follower: Follower) {}

  async requestLook(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId, credentialId } = parseCsHref(href);
    if (!credentialId) throw new TerminalError(`${href} is not a break-glass credential href`);
    this.follower.watch(work, credentialTarget(href));
    const observation = await kit.cs.observeBreakGlassCredential(clusterId, credentialId);
    const state = observation.found ? observation.status.status : 'gone';
    return this.follower.apply(work, kit, requestDecision(work.op.status, observation), state, `credential ${state}`);
  }

  /**
   * A RevokeCredentials' look: the cluster's credentials listed; while some are still active, the
   * follow watches the first of them, so that the event of its revocation brings the next look forward.
   */
  async revokeLook(work: OperationWork, kit: ProcessorKit, clusterId: string): Promise<Outcome> {
    const credentials = await kit.cs.listBreakGlassCredentials(clusterId);
    const pending = credentials.filter((c) => c.status !== 'revoked' && c.status !== 'expired');
    const first = pending[0];
    if (first) this.follower.watch(work, { href: first.href, wakeOn: REVOCATION_ENDS });
    const description =
      pending.length === 0 ? 'no credential active' : `${pending.length} credential(s) ${pending.map((c) => c.status).join(', ')}`;
    return this.follower.apply(work, kit, revokeDecision(credentials), pending.length === 0 ? 'revoked' : 'revoking', description);
  }
}

import {
  isFinal,
  parseCsHref,
  TerminalError,
  type KitBreakGlassCredential,
  type CsObservation,
  type Follower,
  type FollowTarget,
  type OperationWork,
  type Outcome,
  type ProcessorKit,
  type ProcessorTools,
} from '../../src/kit';
import { SharedReads, wholeGroupSource } from '../kit/shared-reads';
import { requestDecision, revokeDecision } from './states';

/** The credential states in which a RequestCredential ends (an event in one of them is worth a look at once). */
const REQUEST_ENDS = ['issued', 'failed', 'expired', 'revoked', 'awaiting_revocation'] as const;

/** The credential states in which a revocation of it is over (revoked, or failed). */
const REVOCATION_ENDS = ['revoked', 'expired', 'failed', 'deleted'] as const;

/** What a RequestCredential's follow reads: its break-glass credential (in its cluster's shared read when `batched`). */
function credentialTarget(href: string, batched = false): FollowTarget {
  return { href, wakeOn: REQUEST_ENDS, ...(batched && { batched: true }) };
}

/**
 * How credential operations look at Clusters Service: a RequestCredential reads its own credential,
 * a RevokeCredentials lists the cluster's (one call); what to write and when to look again is the
 * shared follow's. With batching on (`follow.batchWindowMs` > 0) a RequestCredential's read is a share
 * of its cluster's credential list (`GET …/break_glass_credentials`, whole), one call per cluster per
 * tick; otherwise one `GET` of the credential per look. A credential's kubeconfig is never read from
 * these answers, kept, logged or written: only its id, href and state are (the list never carries it).
 */
export class CredentialLooks {
  /** Credential reads, shared between the looks at one cluster's credentials. */
  readonly reads: SharedReads<KitBreakGlassCredential>;

  constructor(
    readonly follower: Follower,
    tools: Pick<ProcessorTools, 'clock' | 'follow' | 'cs'>,
  ) {
    const { cs } = tools;
    this.reads = new SharedReads<KitBreakGlassCredential>(
      wholeGroupSource({
        kind: 'break-glass credential',
        listAll: (clusterId) => cs.listBreakGlassCredentials(clusterId),
        observeOne: (clusterId, id) => cs.observeBreakGlassCredential(clusterId, id),
        idOf: (c) => c.id,
      }),
      { windowMs: tools.follow.batchWindowMs, now: () => tools.clock.now() },
    );
  }

  /** What a RequestCredential's follow reads (batched when the reads are shared). */
  target(href: string): FollowTarget {
    return credentialTarget(href, this.reads.batching);
  }

  async requestLook(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId, credentialId } = parseCsHref(href);
    if (!credentialId) throw new TerminalError(`${href} is not a break-glass credential href`);
    this.follower.watch(work, this.target(href));
    let observation: CsObservation<KitBreakGlassCredential>;
    let requestedAt: number | undefined;
    if (this.reads.batching) {
      const shared = this.reads.latest(clusterId, credentialId, work.follow.lastCheckAt);
      const fresh = shared !== undefined && !work.follow.woken && kit.clock.now() - shared.requestedAt <= this.follower.shortestDelayMs;
      const read = fresh ? shared : await this.reads.read(clusterId, credentialId);
      observation = read.item ? { found: true, status: read.item } : { found: false };
      requestedAt = read.requestedAt;
    } else {
      observation = await kit.cs.observeBreakGlassCredential(clusterId, credentialId);
    }
    const state = observation.found ? observation.status.status : 'gone';
    const decision = requestDecision(work.op.status, observation);
    if (isFinal(decision)) this.reads.unwatch(clusterId, credentialId);
    else this.reads.watch(clusterId, credentialId);
    const outcome = await this.follower.apply(work, kit, decision, state, `credential ${state}`, requestedAt);
    return this.reads.batching ? this.follower.onTick(outcome, kit) : outcome;
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

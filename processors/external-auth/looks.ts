import {
  DELETE_ACCEPTED,
  DELETE_BUSY,
  TerminalError,
  isFinal,
  parseCsHref,
  sendDelete,
  wakeStates,
  type CsExternalAuth,
  type CsObservation,
  type Follower,
  type FollowTarget,
  type OperationRequest,
  type OperationWork,
  type Outcome,
  type ProcessorKit,
  type ProcessorTools,
} from '../../src/kit';
import { SharedReads, wholeGroupSource } from '../kit/shared-reads';
import { AWAITING_SECRET, EXTERNAL_AUTH_ERROR_STATES, UNINSTALLING, externalAuthDecision } from './states';

/** What an external auth operation's follow reads: the external auth, in its cluster's shared read when `batched`. */
function externalAuthTarget(href: string, request: OperationRequest, batched = false): FollowTarget {
  const wakeOn = wakeStates(request, EXTERNAL_AUTH_ERROR_STATES);
  // Awaiting a secret ends a Create or Update too: an event reporting it is worth a look at once.
  return { href, wakeOn: request === 'Delete' ? wakeOn : [...wakeOn, AWAITING_SECRET], ...(batched && { batched: true }) };
}

/** The cluster and external auth ids of an external auth href. */
export function externalAuthIds(href: string): { clusterId: string; externalAuthId: string } {
  const { clusterId, externalAuthId } = parseCsHref(href);
  if (!externalAuthId) throw new TerminalError(`${href} is not an external auth href`);
  return { clusterId, externalAuthId };
}

/**
 * How an external auth operation looks at Clusters Service: one read of the external auth, decided by
 * `externalAuthDecision` (states.ts); what to write and when to look again is the shared follow's.
 * With batching on (`follow.batchWindowMs` > 0) the read is a share of its cluster's external auth
 * list (`GET …/external_auth_config/external_auths`, whole: the list takes page and size only), one
 * call per cluster per tick for every external auth of it being followed (SharedReads); otherwise one
 * `GET` of the external auth per look.
 */
export class ExternalAuthLooks {
  /** External auth reads, shared between the looks at one cluster's external auths. */
  readonly reads: SharedReads<CsExternalAuth>;

  constructor(
    readonly follower: Follower,
    tools: Pick<ProcessorTools, 'clock' | 'follow' | 'cs'>,
  ) {
    const { cs } = tools;
    this.reads = new SharedReads<CsExternalAuth>(
      wholeGroupSource({
        kind: 'external auth',
        listAll: (clusterId) => cs.listExternalAuths(clusterId),
        observeOne: (clusterId, id) => cs.observeExternalAuth(clusterId, id),
        idOf: (ea) => ea.id,
      }),
      { windowMs: tools.follow.batchWindowMs, now: () => tools.clock.now() },
    );
  }

  /** What an external auth operation's follow reads (batched when the reads are shared). */
  target(href: string, request: OperationRequest): FollowTarget {
    return externalAuthTarget(href, request, this.reads.batching);
  }

  async statusLook(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId, externalAuthId } = externalAuthIds(href);
    this.follower.watch(work, this.target(href, work.op.request));
    const { observation, requestedAt } = await this.observe(work, kit, clusterId, externalAuthId);
    return this.decide(work, kit, observation, requestedAt);
  }

  /**
   * What this look knows of the external auth: batched, a shared read made for another look since this
   * follow's last check when it is as recent as the shortest delay (never on a look an event brought
   * forward), else a share of the next one; not batched, one `GET`.
   */
  async observe(
    work: OperationWork,
    kit: ProcessorKit,
    clusterId: string,
    externalAuthId: string,
  ): Promise<{ observation: CsObservation<CsExternalAuth>; requestedAt?: number }> {
    if (!this.reads.batching) return { observation: await kit.cs.observeExternalAuth(clusterId, externalAuthId) };
    const shared = this.reads.latest(clusterId, externalAuthId, work.follow.lastCheckAt);
    const fresh = shared !== undefined && !work.follow.woken && kit.clock.now() - shared.requestedAt <= this.follower.shortestDelayMs;
    const read = fresh ? shared : await this.reads.read(clusterId, externalAuthId);
    return { observation: read.item ? { found: true, status: read.item } : { found: false }, requestedAt: read.requestedAt };
  }

  /** Writes what an observation of the external auth says (an Update that sent nothing decides from the read it made). */
  async decide(work: OperationWork, kit: ProcessorKit, observation: CsObservation<CsExternalAuth>, observedAt?: number): Promise<Outcome> {
    const decision = externalAuthDecision(work.op.request, work.op.status, observation);
    const state = observation.found ? (observation.status.status?.state.value ?? 'unknown') : 'gone';
    const description = observation.found ? observation.status.status?.message || state : 'not found';
    if (state === AWAITING_SECRET && decision.kind === 'set' && decision.status === 'Succeeded')
      work.logger.warn('external auth configured in Clusters Service but awaiting a client secret on the cluster', {
        href: observation.found ? observation.status.href : '',
      });
    if (observation.found) {
      const { clusterId, externalAuthId } = externalAuthIds(observation.status.href);
      if (isFinal(decision)) this.reads.unwatch(clusterId, externalAuthId);
      else this.reads.watch(clusterId, externalAuthId);
    }
    const outcome = await this.follower.apply(work, kit, decision, state, description, observedAt);
    return this.reads.batching ? this.follower.onTick(outcome, kit) : outcome;
  }

  /**
   * A Delete's look, decided from one read of the external auth: gone (404, its cluster's too) →
   * `gone`; uninstalling → CS is deleting it, the look only paces the next one; any other state → a
   * DELETE (idempotent). A Delete just written sends its DELETE without reading first; past the
   * deadline (`work.late`) nothing is sent: the failure says what CS last reported. Batched, a look
   * while CS uninstalls it costs a share of the cluster's shared external auth read.
   */
  async deleteLook(work: OperationWork, kit: ProcessorKit, href: string, hooks: { gone: () => Promise<Outcome> }): Promise<Outcome> {
    const { clusterId, externalAuthId } = externalAuthIds(href);
    const target = this.target(href, work.op.request);
    const { follower } = this;
    follower.watch(work, target);
    const send = (): Promise<'accepted' | 'gone' | 'busy'> => sendDelete(() => kit.cs.deleteExternalAuth(clusterId, externalAuthId));
    const gone = (): Promise<Outcome> => {
      this.reads.unwatch(clusterId, externalAuthId);
      return hooks.gone();
    };
    if (!work.late && !work.follow.woken && follower.isJustWritten(work, kit)) {
      const answer = await send();
      if (answer === 'gone') return gone();
      if (answer === 'accepted') {
        this.reads.watch(clusterId, externalAuthId);
        return follower.paceDeleteLook(work, kit, target, 'deleting', DELETE_ACCEPTED);
      }
    }
    const { observation, requestedAt } = await this.observe(work, kit, clusterId, externalAuthId);
    if (!observation.found) return gone();
    this.reads.watch(clusterId, externalAuthId);
    const state = observation.status.status?.state.value ?? 'unknown';
    const description = observation.status.status?.message || state;
    if (work.late) return follower.apply(work, kit, { kind: 'keep' }, state, description, requestedAt);
    if (state === UNINSTALLING) return follower.paceDeleteLook(work, kit, target, state, `CS ${state}`, requestedAt);
    const answer = await send();
    if (answer === 'gone') return gone();
    return follower.paceDeleteLook(work, kit, target, 'deleting', answer === 'busy' ? DELETE_BUSY : DELETE_ACCEPTED, requestedAt);
  }
}

import {
  DELETE_ACCEPTED,
  DELETE_BUSY,
  TerminalError,
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
} from '../../src/kit';
import { AWAITING_SECRET, EXTERNAL_AUTH_ERROR_STATES, UNINSTALLING, externalAuthDecision } from './states';

/** What an external auth operation's follow reads: the external auth, one call per look. */
export function externalAuthTarget(href: string, request: OperationRequest): FollowTarget {
  const wakeOn = wakeStates(request, EXTERNAL_AUTH_ERROR_STATES);
  // Awaiting a secret ends a Create or Update too: an event reporting it is worth a look at once.
  return { href, wakeOn: request === 'Delete' ? wakeOn : [...wakeOn, AWAITING_SECRET] };
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
 */
export class ExternalAuthLooks {
  constructor(readonly follower: Follower) {}

  async statusLook(work: OperationWork, kit: ProcessorKit, href: string): Promise<Outcome> {
    const { clusterId, externalAuthId } = externalAuthIds(href);
    this.follower.watch(work, externalAuthTarget(href, work.op.request));
    return this.decide(work, kit, await kit.cs.observeExternalAuth(clusterId, externalAuthId));
  }

  /** Writes what an observation of the external auth says (an Update that sent nothing decides from the read it made). */
  decide(work: OperationWork, kit: ProcessorKit, observation: CsObservation<CsExternalAuth>): Promise<Outcome> {
    const decision = externalAuthDecision(work.op.request, work.op.status, observation);
    const state = observation.found ? (observation.status.status?.state.value ?? 'unknown') : 'gone';
    const description = observation.found ? observation.status.status?.message || state : 'not found';
    if (state === AWAITING_SECRET && decision.kind === 'set' && decision.status === 'Succeeded')
      work.logger.warn('external auth configured in Clusters Service but awaiting a client secret on the cluster', {
        href: observation.found ? observation.status.href : '',
      });
    return this.follower.apply(work, kit, decision, state, description);
  }

  /**
   * A Delete's look, decided from one read of the external auth: gone (404, its cluster's too) →
   * `gone`; uninstalling → CS is deleting it, the look only paces the next one; any other state → a
   * DELETE (idempotent). A Delete just written sends its DELETE without reading first; past the
   * deadline (`work.late`) nothing is sent: the failure says what CS last reported.
   */
  async deleteLook(work: OperationWork, kit: ProcessorKit, href: string, hooks: { gone: () => Promise<Outcome> }): Promise<Outcome> {
    const { clusterId, externalAuthId } = externalAuthIds(href);
    const target = externalAuthTarget(href, work.op.request);
    const { follower } = this;
    follower.watch(work, target);
    const send = (): Promise<'accepted' | 'gone' | 'busy'> => sendDelete(() => kit.cs.deleteExternalAuth(clusterId, externalAuthId));
    if (!work.late && !work.follow.woken && follower.isJustWritten(work, kit)) {
      const answer = await send();
      if (answer === 'gone') return hooks.gone();
      if (answer === 'accepted') return follower.paceDeleteLook(work, kit, target, 'deleting', DELETE_ACCEPTED);
    }
    const observation = await kit.cs.observeExternalAuth(clusterId, externalAuthId);
    if (!observation.found) return hooks.gone();
    const state = observation.status.status?.state.value ?? 'unknown';
    const description = observation.status.status?.message || state;
    if (work.late) return follower.apply(work, kit, { kind: 'keep' }, state, description);
    if (state === UNINSTALLING) return follower.paceDeleteLook(work, kit, target, state, `CS ${state}`);
    const answer = await send();
    if (answer === 'gone') return hooks.gone();
    return follower.paceDeleteLook(work, kit, target, 'deleting', answer === 'busy' ? DELETE_BUSY : DELETE_ACCEPTED);
  }
}

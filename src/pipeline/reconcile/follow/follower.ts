import { pastTime } from '../../../domain/document-time';
import { isTerminal } from '../../../domain/statuses';
import { takesOverResource } from '../../../domain/requests';
import type { StatusDecision } from '../../../domain/cs-mapping';
import { PIPELINE_EVENTS } from '../../events';
import { alignToTick, nextFollow } from './schedule';
import { ended, type OperationWork, type ProcessorKit, type ProcessorTools } from '../processor';
import { Outcome, again } from '../../queue/outcome';
import { FirstCheckLearner } from './first-check-learner';
import { isConflict } from '../../../clusters-service';

/**
 * What a follow reads in Clusters Service: the object (`href`), the states an event may report that
 * are worth a look at once (`wakeOn`, see wakeStates), and whether its reads are batched (its looks
 * then wake on the shared tick, so reads due together share one call).
 */
export interface FollowTarget {
  readonly href: string;
  readonly wakeOn: readonly string[];
  readonly batched?: boolean;
}

/**
 * The status follow every kind's processors share: the write-back of what a look decided
 * (domain/cs-mapping), and when to look again (the first check learned per kind of operation, then
 * backing off to the configured ceiling while nothing moves). It reads nothing itself: each kind's
 * looks (`processors/<kind>/`) read Clusters Service their own way (one call, or a share of a batched
 * one) and hand their decision to `apply`. Each look records what it watches (`watch`) so that a
 * Clusters Service event can bring the next one forward; while such events flow, the follow's own
 * checks are only a safety net and wait at least `csEvents.followDelayMs`.
 */
export class Follower {
  /** When to check Clusters Service first after a dispatch, learned per kind of operation. */
  private readonly firstCheck: FirstCheckLearner;

  constructor(private readonly tools: ProcessorTools) {
    const { follow } = tools;
    this.firstCheck = new FirstCheckLearner({
      hitRatio: follow.firstCheckHitRatio,
      startMs: Math.max(follow.initialDelayMs, follow.maxDelayMs / 2),
      minMs: follow.initialDelayMs,
      maxMs: follow.maxDelayMs,
    });
  }

  /** Shortest delay before looking at Clusters Service again (after an unknown outcome, say). */
  get shortestDelayMs(): number {
    return this.tools.follow.initialDelayMs;
  }

  /**
   * The operation was written moments ago (within four shortest delays of its `startTime`), so this
   * look is the one that dispatches it: nobody has asked Clusters Service anything yet.
   */
  isJustWritten(work: OperationWork, kit: ProcessorKit): boolean {
    const now = kit.clock.now();
    return now - pastTime(work.op.startTime, now, work.op) < 4 * this.tools.follow.initialDelayMs;
  }

  /**
   * Right after this instance dispatched the operation to Clusters Service: the delay of the first
   * status check (learned for its kind). Checks after a miss start from it again: a miss of a
   * delay most operations of the kind finish within is one of the long ones. A batched check (a
   * batched target's, unless told) is aligned to the batch tick (its reads are shared).
   */
  firstCheckAfterDispatch(work: OperationWork, kit: ProcessorKit, target?: FollowTarget, batched = target?.batched === true): number {
    const kind = followKind(work);
    const delayMs = this.firstCheck.delayMs(kind);
    if (target) this.watch(work, target);
    Object.assign(work.follow, {
      firstCheckOf: kind,
      unchanged: 0,
      baseDelayMs: Math.max(this.tools.follow.initialDelayMs, delayMs),
      // Reads sent before the dispatch answered say nothing about what it started.
      lastCheckAt: kit.clock.now(),
    });
    kit.events.emit({ type: PIPELINE_EVENTS.followFirstCheck, kind, delayMs });
    const paced = this.stretched(delayMs);
    return batched ? this.onBatchTick(kit, paced) : paced;
  }

  /** Writes what the decision says and paces the next look. */
  async apply(
    work: OperationWork,
    kit: ProcessorKit,
    decision: StatusDecision,
    state: string,
    description: string,
    observedAt?: number,
  ): Promise<Outcome> {
    const now = kit.clock.now();
    const previousCheck = work.follow.lastCheckAt;
    // Back to quick checks only when what we write changes (Accepted → Provisioning …), not on every
    // intermediate CS state (pending → validating): that keeps Clusters Service calls per operation low.
    const progress = decision.kind === 'set' ? decision.status : decision.kind === 'keep' ? work.op.status : decision.kind;
    const next = nextFollow(this.tools.follow, work.follow, progress);
    // CS is working (or moved): an event will say when it is done. Anything else is retried at the follow's own pace.
    if (decision.kind === 'keep' || decision.kind === 'set') next.delayMs = this.stretched(next.delayMs);
    const firstCheckOf = work.follow.firstCheckOf;
    // A check an event brought forward finds CS done by construction: it says nothing of how long CS takes.
    if (firstCheckOf !== undefined && !work.follow.woken) {
      this.firstCheck.record(firstCheckOf, isFinal(decision));
      kit.events.emit({ type: PIPELINE_EVENTS.followFirstCheck, kind: firstCheckOf, delayMs: this.firstCheck.delayMs(firstCheckOf) });
    }
    work.follow.firstCheckOf = undefined;
    work.follow.woken = undefined;
    const since = work.follow.csState === state ? work.follow.csStateSince : (observedAt ?? now);
    Object.assign(work.follow, next.state, {
      lastDescription: description,
      lastCheckAt: observedAt ?? now,
      csState: state,
      csStateSince: since,
    });
    const completed = (): void => {
      // CS became final at most this long ago: the gap since the previous check that saw it otherwise.
      if (previousCheck !== undefined)
        kit.events.emit({ type: PIPELINE_EVENTS.followCompleted, request: work.op.request, lagMs: now - previousCheck });
    };
    // An operation that does not own its Resource (one whose processor says it leaves the Resource alone) writes its own status only.
    const ownsResource = takesOverResource(work.op.request);
    switch (decision.kind) {
      case 'set': {
        const change = { status: decision.status, error: decision.error ?? null, observed: decision.observed };
        await kit.writeBack(work.op, ownsResource ? change : { ...change, skipResource: true }, ownsResource ? work.resource : undefined);
        if (!isTerminal(decision.status)) return again(next.delayMs, `CS ${state}`);
        completed();
        return ended(decision.status);
      }
      case 'deleted':
        await kit.writeBack(work.op, { status: 'Succeeded', error: null, deleteResource: true }, work.resource);
        completed();
        return ended('Succeeded', 'deleted');
      case 'keep':
        return again(next.delayMs, `CS ${state}`);
      case 'retry-later':
        return again(next.delayMs, decision.reason);
      case 'need-inflight-checks':
        return again(next.delayMs, 'inflight checks not readable yet');
    }
  }

  /**
   * Paces the look after a Delete's DELETE: this instance's first look waits like a first check after
   * a dispatch, the later ones like any status check (a batched target's on the batch tick).
   */
  async paceDeleteLook(
    work: OperationWork,
    kit: ProcessorKit,
    target: FollowTarget,
    state: string,
    note: string,
    observedAt?: number,
  ): Promise<Outcome> {
    if (work.follow.lastCheckAt === undefined) return again(this.firstCheckAfterDispatch(work, kit, target), note);
    const outcome = await this.apply(work, kit, { kind: 'keep' }, state, note, observedAt);
    if (outcome.kind !== 'again') return outcome;
    return again(target.batched ? this.onBatchTick(kit, outcome.afterMs) : outcome.afterMs, note);
  }

  /** Records what this follow reads, so that an event about it can wake the operation. */
  watch(work: OperationWork, target: FollowTarget): void {
    work.follow.watch = { href: target.href, wakeOn: target.wakeOn };
  }

  /** A batched target's look: a positive delay moved onto the shared tick, so reads due together share one call. */
  onTick(outcome: Outcome, kit: ProcessorKit): Outcome {
    return outcome.kind === 'again' && outcome.afterMs > 0 ? again(this.onBatchTick(kit, outcome.afterMs), outcome.note) : outcome;
  }

  /** While Clusters Service events flow, the follow's own checks are a safety net: at least `followDelayMs` apart. */
  private stretched(delayMs: number): number {
    const events = this.tools.csEvents;
    return events && delayMs > 0 && events.flowing() ? Math.max(delayMs, events.followDelayMs) : delayMs;
  }

  private onBatchTick(kit: ProcessorKit, delayMs: number): number {
    const { batchTickMs, maxDelayMs } = this.tools.follow;
    return alignToTick(delayMs, kit.clock.now(), batchTickMs, maxDelayMs);
  }
}

/** Kind of operation as the first-check learner keys it: the resource type's last segment and the request (`…/Update`). */
function followKind(work: OperationWork): string {
  const type = work.resource.resourceType;
  return `${type.slice(type.lastIndexOf('/') + 1)}/${work.op.request}`;
}

/** CS reached a final state: what the first check after a dispatch hopes to find. */
export function isFinal(decision: StatusDecision): boolean {
  return decision.kind === 'deleted' || (decision.kind === 'set' && isTerminal(decision.status));
}

/** The note of a Delete's look whose DELETE CS accepted (the object is still there). */
export const DELETE_ACCEPTED = 'delete requested';
/** The note of a Delete's look whose DELETE CS refused for now (409). */
export const DELETE_BUSY = 'Clusters Service refused the DELETE for now';

/** What an (idempotent) DELETE answered: CS took it, the object was already gone (404), or CS refused it for now (409). */
export async function sendDelete(send: () => Promise<{ alreadyGone: boolean }>): Promise<'accepted' | 'gone' | 'busy'> {
  try {
    return (await send()).alreadyGone ? 'gone' : 'accepted';
  } catch (err) {
    if (!isConflict(err)) throw err;
    return 'busy';
  }
}

import type { Clock } from '../../../util/clock';
import type { CsStateHint } from '../../cs-hints';
import type { FollowState } from './schedule';

/** Latest Clusters Service event per href, remembered so a handling that set its watch after the event still sees it. */
const MAX_RECENT_EVENTS = 10_000;

/**
 * What this instance remembers of each operation's status follow (when to look again, never what to
 * do), and the Clusters Service events that bring a look forward: an event about the object a follow
 * watches, in a state that can end the operation, wakes it; one that arrived while the handling ran,
 * before it said what it watches, is remembered briefly so that it still counts.
 */
export class FollowBook {
  /** Pacing memory of the status follow, per operation; dropped with the operation's queue entry. */
  private readonly byOperation = new Map<string, FollowState>();
  /** Latest event per href and when it arrived (insertion order = age, bounded). */
  private readonly recentEvents = new Map<string, { state: string; at: number }>();

  constructor(private readonly clock: Clock) {}

  /**
   * The operations whose status follow watches `hint.href` and for which `hint.state` is worth a check
   * now; each is marked woken (its next check was brought forward). The hint is remembered briefly.
   */
  wake(hint: CsStateHint): Set<string> {
    this.recentEvents.delete(hint.href);
    this.recentEvents.set(hint.href, { state: hint.state, at: this.clock.now() });
    if (this.recentEvents.size > MAX_RECENT_EVENTS) this.recentEvents.delete(this.recentEvents.keys().next().value as string);
    const ids = new Set<string>();
    for (const [id, follow] of this.byOperation) {
      if (follow.watch?.href !== hint.href || !follow.watch.wakeOn.includes(hint.state)) continue;
      follow.woken = true;
      ids.add(id);
    }
    return ids;
  }

  /** The follow memory of an operation this handling works on: begun empty on its first handling here. */
  begin(operationId: string): FollowState {
    const follow = this.byOperation.get(operationId) ?? { unchanged: 0 };
    this.byOperation.set(operationId, follow);
    return follow;
  }

  /** What this instance remembers of an operation's follow, if anything. */
  of(operationId: string): Readonly<FollowState> | undefined {
    return this.byOperation.get(operationId);
  }

  /**
   * The state of an event worth a check that arrived at or after `since` about what `follow` watches
   * (it came while the handling ran, before the watch was set): the follow is then marked woken.
   */
  missedSince(follow: FollowState, since: number): string | undefined {
    const missed = follow.watch && this.recentEvents.get(follow.watch.href);
    if (!missed || missed.at < since || !follow.watch?.wakeOn.includes(missed.state)) return undefined;
    follow.woken = true;
    return missed.state;
  }

  forget(operationId: string): void {
    this.byOperation.delete(operationId);
  }
}

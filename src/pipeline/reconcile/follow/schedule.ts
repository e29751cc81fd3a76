/**
 * When to look at Clusters Service again while following an operation: from a base delay, growing
 * by half up to a ceiling, and back to the base whenever the observed progress changed (things are moving,
 * so the next change is likely near). What counts as progress is the caller's choice (the status
 * follow uses the status it would write). The first check after a dispatch is not scheduled here
 * but learned (first-check-learner.ts); the base then scales with it. Pure; the caller keeps the state.
 */
export interface FollowScheduleOptions {
  /** Shortest delay between checks: the base when nothing else is known. @defaultValue 250 */
  initialDelayMs: number;
  /** Ceiling of the delay while nothing changes: bounds the completion lag. @defaultValue 10_000 */
  maxDelayMs: number;
  /** Checks whose reads are batched wake on multiples of this, to share calls (0 = off). @defaultValue 1000 */
  batchTickMs?: number;
}

export interface FollowState {
  /** Checks since the last observed change. */
  unchanged: number;
  /** Last CS state observed (opaque). */
  lastState?: string;
  /** Last human-readable CS description, for the message of a deadline failure. */
  lastDescription?: string;
  /** The state Clusters Service last reported, as it says it (installing, ready, …), and since when this instance has seen it (ms). */
  csState?: string;
  csStateSince?: number;
  /** When the last check happened (ms): bounds how long CS sat in a final state unseen. */
  lastCheckAt?: number;
  /** Kind of operation whose first check after this instance's dispatch is still to come (what the learner is told). */
  firstCheckOf?: string;
  /** Delay the backoff starts from, when not `initialDelayMs` (set from the learned first-check delay). */
  baseDelayMs?: number;
  /**
   * The Clusters Service object the follow reads, and the states an event may report that are worth a
   * check now (those that can end the operation): an event for `href` in one of them wakes it.
   */
  watch?: { readonly href: string; readonly wakeOn: readonly string[] };
  /** The next check was brought forward by an event (its finding says nothing about how long CS takes). */
  woken?: boolean;
}

const GROWTH = 1.5;

export function nextFollow(
  options: FollowScheduleOptions,
  state: FollowState,
  observedState: string,
): { delayMs: number; state: FollowState } {
  const changed = state.lastState !== observedState;
  const unchanged = changed ? 0 : state.unchanged + 1;
  const delayMs = Math.min(options.maxDelayMs, Math.round((state.baseDelayMs ?? options.initialDelayMs) * Math.pow(GROWTH, unchanged)));
  return { delayMs, state: { ...state, unchanged, lastState: observedState } };
}

/**
 * `afterMs` moved to a multiple of `tickMs` (from the epoch): followers whose checks are due within
 * one tick wake together, so their reads share one call. Later by less than a tick, or earlier when
 * later would pass `ceilingMs` (the follow's ceiling bounds the completion lag). 0 = off.
 */
export function alignToTick(afterMs: number, now: number, tickMs: number, ceilingMs = Infinity): number {
  if (tickMs <= 0 || afterMs <= 0) return afterMs;
  const later = Math.ceil((now + afterMs) / tickMs) * tickMs - now;
  return later > Math.max(ceilingMs, afterMs) && later - tickMs > 0 ? later - tickMs : later;
}

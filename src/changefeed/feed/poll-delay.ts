import type { Clock } from '../util/clock';

/**
 * The pause before the next change feed read of one range. Two policies:
 *
 * - **Active window** (`activeWindowMs > 0`, the default): for `activeWindowMs` after the last read
 *   that brought changes, an empty read waits `activePollDelayMs`; once the window has passed, each
 *   empty read doubles the pause up to `maxPollDelayMs`. Operations come in bursts (a create, then
 *   its node pools and updates, the backend's own write-backs), so a range that just changed is
 *   likely to change again soon and is worth polling fast, while a quiet one costs
 *   `1000 / maxPollDelayMs` requests per second. `activePollDelayMs` is capped at `maxPollDelayMs`.
 * - **Ramp** (`activeWindowMs = 0`): after the n-th consecutive empty read wait
 *   `maxPollDelayMs / 2^(rampSteps - n)`, so a caught-up range climbs to the ceiling in `rampSteps`
 *   reads; with 0 steps it waits the ceiling at once (as .NET does).
 *
 * Either way a full page (a backlog) is read on after `minPollDelayMs`, and a page with changes that
 * is not full says the range is caught up, as an empty read would: it counts as the first empty read,
 * without the read that would only have answered 304.
 *
 * @example nextPollDelayMs({ hadChanges: false, consecutiveEmpty: 1 }, { minPollDelayMs: 0, maxPollDelayMs: 100, pollDelayRampSteps: 4 }) // 13
 */
export interface PollDelaySettings {
  minPollDelayMs: number;
  maxPollDelayMs: number;
  pollDelayRampSteps: number;
}

export interface ActiveWindowSettings extends PollDelaySettings {
  /** Pause after an empty read within the active window (capped at `maxPollDelayMs`). */
  activePollDelayMs: number;
  /** How long after its last change a range stays active; 0 = no window (the ramp decides). */
  activeWindowMs: number;
  clock: Clock;
}

export interface PollOutcome {
  /** The read returned changes and more may be waiting (a full page): read on at the minimum. */
  hadChanges: boolean;
  /** Empty reads in a row including this one (0 after a page with changes). */
  consecutiveEmpty: number;
}

export function nextPollDelayMs(outcome: PollOutcome, s: PollDelaySettings): number {
  if (outcome.hadChanges || outcome.consecutiveEmpty <= 0) return s.minPollDelayMs;
  const remaining = Math.max(0, s.pollDelayRampSteps - outcome.consecutiveEmpty);
  const ramped = Math.round(s.maxPollDelayMs / Math.pow(2, remaining));
  return Math.min(s.maxPollDelayMs, Math.max(s.minPollDelayMs, ramped));
}

/**
 * The active window's pause: `emptySinceWindow` empty reads since the window ended (1 = the first).
 * Doubling from the active pause rather than jumping to the ceiling keeps a burst that pauses just
 * past the window from waiting a full ceiling at once.
 */
function activeWindowDelayMs(inWindow: boolean, emptySinceWindow: number, s: Omit<ActiveWindowSettings, 'clock'>): number {
  const active = Math.min(s.activePollDelayMs, s.maxPollDelayMs);
  // 2^n overflows to Infinity past ~1024 reads, which the cap absorbs.
  const delay = inWindow ? active : Math.max(active, 1) * Math.pow(2, Math.max(0, emptySinceWindow));
  return Math.min(s.maxPollDelayMs, Math.max(s.minPollDelayMs, delay));
}

/** Tracks one reader's recent reads and gives the pause before its next one. */
export class PollDelay {
  private empty = 0;
  private lastChangeAt?: number;
  private emptySinceWindow = 0;

  constructor(private readonly settings: ActiveWindowSettings) {}

  /** Records a read (`changes` documents of a page of at most `pageSize`) and returns the delay before the next one. */
  afterRead(changes: number, pageSize: number): number {
    const s = this.settings;
    const backlog = changes > 0 && changes >= pageSize;
    // A page that is not full is the caught-up answer an empty read would give: the ramp starts over at its first step.
    this.empty = backlog ? 0 : changes > 0 ? 1 : this.empty + 1;
    if (s.activeWindowMs <= 0 || backlog) return nextPollDelayMs({ hadChanges: backlog, consecutiveEmpty: this.empty }, s);
    const now = s.clock.now();
    if (changes > 0) {
      this.lastChangeAt = now;
      this.emptySinceWindow = 0;
    }
    const inWindow = this.lastChangeAt !== undefined && now - this.lastChangeAt < s.activeWindowMs;
    if (inWindow) return activeWindowDelayMs(true, 0, s);
    // Never active (a lease just taken, an idle range): the ceiling. Otherwise climb from the active pause.
    if (this.lastChangeAt === undefined) return activeWindowDelayMs(false, Infinity, s);
    this.emptySinceWindow++;
    return activeWindowDelayMs(false, this.emptySinceWindow, s);
  }
}

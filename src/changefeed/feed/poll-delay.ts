/**
 * Adaptive poll delay: read again at `minPollDelayMs` after a full page (a backlog); after the n-th
 * consecutive empty read (304) wait `maxPollDelayMs / 2^(rampSteps - n)`, so an idle range climbs
 * to the ceiling in `rampSteps` reads and then costs `1000 / maxPollDelayMs` requests per second.
 * The ramp keeps a range that is busy but bursty (changes every few tens of ms) close to the
 * minimum, where a fixed delay would add its full value to every change's latency.
 *
 * A page with changes that is not full says the range is caught up, as an empty read would: it
 * counts as the first empty read, without the read that would only have answered 304. With a ramp of
 * 0 steps the next read is at the ceiling, so a change costs no read beyond its own page.
 *
 * @example nextPollDelayMs({ hadChanges: false, consecutiveEmpty: 1 }, { minPollDelayMs: 0, maxPollDelayMs: 100, pollDelayRampSteps: 4 }) // 13
 */
export interface PollDelaySettings {
  minPollDelayMs: number;
  maxPollDelayMs: number;
  pollDelayRampSteps: number;
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

/** Tracks the consecutive-empty count of one reader. */
export class PollDelay {
  private empty = 0;
  constructor(private readonly settings: PollDelaySettings) {}

  /** Records a read (`changes` documents of a page of at most `pageSize`) and returns the delay before the next one. */
  afterRead(changes: number, pageSize: number): number {
    const backlog = changes > 0 && changes >= pageSize;
    // A page that is not full is the caught-up answer an empty read would give: the ramp starts over at its first step.
    this.empty = backlog ? 0 : changes > 0 ? 1 : this.empty + 1;
    return nextPollDelayMs({ hadChanges: backlog, consecutiveEmpty: this.empty }, this.settings);
  }
}

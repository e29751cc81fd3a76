/**
 * A warning that one message or event can cause (an invalid message, a failed receive, a stream client
 * that missed events) is logged at most once per interval, however often it happens: a sender that floods
 * a topic with bad messages cannot flood the log. The next line logged says how many were left out.
 */
export class LogThrottle {
  private lastAt = -Infinity;
  private suppressed = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  /** The number left out since the last line when this one is to be logged; undefined (counted) when not. */
  take(): number | undefined {
    const now = this.now();
    if (now - this.lastAt < this.intervalMs) {
      this.suppressed++;
      return undefined;
    }
    this.lastAt = now;
    const suppressed = this.suppressed;
    this.suppressed = 0;
    return suppressed;
  }
}

/** ` (N more since the last such line, not logged)`, or '' when none were left out. */
export function suppressedNote(suppressed: number): string {
  return suppressed > 0 ? ` (${suppressed} more since the last such line, not logged)` : '';
}

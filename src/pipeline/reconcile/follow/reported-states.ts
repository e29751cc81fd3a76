import type { CsStateHint } from './cs-hints';

/**
 * The latest state Clusters Service events reported per object (href), bounded. "Latest" by the
 * event's own time, not by arrival: an event that arrives late or out of order never replaces a
 * newer one. What it remembers is a hint like the events themselves: it may be stale (events lost),
 * so it may only spare a read whose answer would merely choose an idempotent action, never decide
 * an operation's status.
 */
export class ReportedStates {
  /** Insertion order = age of the last change: the oldest href is forgotten first. */
  private readonly byHref = new Map<string, { state: string; time: number }>();

  constructor(private readonly capacity = 10_000) {}

  note(hint: CsStateHint): void {
    const time = hint.time ?? -Infinity;
    const known = this.byHref.get(hint.href);
    if (known && known.time > time) return;
    this.byHref.delete(hint.href);
    this.byHref.set(hint.href, { state: hint.state, time });
    if (this.byHref.size > this.capacity) this.byHref.delete(this.byHref.keys().next().value as string);
  }

  /** The state the newest event about `href` reported, if one arrived (and is still remembered). */
  latest(href: string): string | undefined {
    return this.byHref.get(href)?.state;
  }
}

import type { CsStateHint } from './cs-hints';

/** What an entry costs beyond its strings (Map slot, entry object, string headers), roughly. */
const ENTRY_OVERHEAD_BYTES = 120;

/**
 * The latest state Clusters Service events reported per object (href), bounded in entries and in bytes
 * (the schema bounds each event, but 10,000 entries of its longest fields would still be megabytes).
 * "Latest" by the event's own time, not by arrival: an event that arrives late or out of order never
 * replaces a newer one. What it remembers is a hint like the events themselves: it may be stale (events
 * lost), so it may only spare a read whose answer would merely choose an idempotent action, never decide
 * an operation's status.
 */
export class ReportedStates {
  /** Insertion order = age of the last change: the oldest href is forgotten first. */
  private readonly byHref = new Map<string, { state: string; time: number }>();
  private held = 0;

  constructor(
    private readonly capacity = 10_000,
    private readonly maxBytes = 4 * 2 ** 20,
  ) {}

  note(hint: CsStateHint): void {
    const time = hint.time ?? -Infinity;
    const known = this.byHref.get(hint.href);
    if (known && known.time > time) return;
    this.forget(hint.href);
    const cost = entryBytes(hint.href, hint.state);
    if (cost > this.maxBytes) return;
    this.byHref.set(hint.href, { state: hint.state, time });
    this.held += cost;
    while (this.byHref.size > this.capacity || this.held > this.maxBytes) this.forget(this.byHref.keys().next().value as string);
  }

  /** The state the newest event about `href` reported, if one arrived (and is still remembered). */
  latest(href: string): string | undefined {
    return this.byHref.get(href)?.state;
  }

  /** What the table holds, as counted against `maxBytes` (UTF-16 strings plus a fixed overhead per entry). */
  get bytes(): number {
    return this.held;
  }

  private forget(href: string): void {
    const known = this.byHref.get(href);
    if (!known) return;
    this.byHref.delete(href);
    this.held -= entryBytes(href, known.state);
  }
}

const entryBytes = (href: string, state: string): number => 2 * (href.length + state.length) + ENTRY_OVERHEAD_BYTES;

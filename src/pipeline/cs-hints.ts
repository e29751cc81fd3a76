/**
 * Owned by the pipeline and shared with the Service Bus receiver of Clusters Service events, which
 * hands events in through these types: the receiver reaches no stage of the pipeline.
 */

/** A Clusters Service state change as the pipeline uses it: a hint that `href` may now be in `state`. */
export interface CsStateHint {
  readonly href: string;
  readonly state: string;
  /** When Clusters Service saw the change (ms since the epoch, its clock), when the event says. */
  readonly time?: number;
}

/** Clusters Service events as the status follow sees them (present when a Service Bus namespace is configured). */
export interface CsEventHints {
  /** Events arrived lately: the follow's own checks may wait longer. */
  flowing(): boolean;
  /** Shortest wait between the follow's own checks while events flow. */
  readonly followDelayMs: number;
  /**
   * The state the newest event about this object (href) reported, if any arrived: a hint that may be
   * stale, never a status. A Delete uses it to send its idempotent DELETE without reading first.
   */
  reported(href: string): string | undefined;
}

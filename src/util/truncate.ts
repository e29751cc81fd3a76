/**
 * Cutting free text that is copied out of a document or an answer (into an event, a span, a log
 * line) to a bound, with a marker that says so and how long it was.
 */

/** `text` itself when within `max` characters, else its first `max` followed by `…[truncated: N characters]`. */
export function truncateText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[truncated: ${text.length} characters]`;
}

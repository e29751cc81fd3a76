/**
 * `Retry-After` (RFC 9110 §10.2.3) as milliseconds from `now`: delay-seconds or an HTTP date (a date in
 * the past is 0). Undefined when absent or unreadable. The one parser of the header: Clusters Service
 * answers and ARM's answers to notifications. What to do with a long wait is the caller's to decide.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

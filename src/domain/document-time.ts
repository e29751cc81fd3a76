/**
 * Times read from documents, as opstream's decisions use them. A schema-valid RFC 3339 time can still
 * be one JavaScript cannot represent: a leap second (`…T23:59:60Z`, which `Date.parse` turns into
 * NaN). Every time a decision rests on goes through here, so that no delay or deadline computed from
 * a document is ever NaN: a leap second counts as the first instant of the next minute, and anything
 * that still does not parse (no schema-valid time does) is reported as what it is.
 */

/** A leap second: `:60` seconds, with an optional fraction, before the offset. */
const LEAP_SECOND = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}):60(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** Thrown for a document time that is not an RFC 3339 time at all (the schema lets none through). */
export class UnreadableTimeError extends Error {
  constructor(readonly value: string) {
    super(`"${value.slice(0, 64)}" is not an RFC 3339 time`);
    this.name = 'UnreadableTimeError';
  }
}

/** Milliseconds since the epoch of an RFC 3339 time, leap seconds included (as the next minute's start). */
export function parseDocumentTime(value: string): number {
  const leap = LEAP_SECOND.exec(value);
  const ms = leap ? Date.parse(`${leap[1]}:59${leap[2] ?? ''}${leap[3]}`) + 1000 : Date.parse(value);
  if (!Number.isFinite(ms)) throw new UnreadableTimeError(value);
  return ms;
}

/**
 * A time that says when something already happened (an Operation's `startTime`, its
 * `lastTransitionTime`), bounded by what the servers know: it cannot lie after the document's last
 * write (`_ts`, Cosmos DB's clock, in seconds) nor after now. A time in the future of both counts as
 * the earlier of them — a clock ahead of opstream's must not push a deadline out by years, nor keep
 * one moving with opstream's own clock.
 */
export function pastTime(value: string, now: number, doc?: { readonly _ts?: number }): number {
  const writtenAt = doc?._ts !== undefined && Number.isFinite(doc._ts) ? (doc._ts + 1) * 1000 : Infinity;
  return Math.min(parseDocumentTime(value), writtenAt, now);
}

/**
 * Until when a claim written by an instance (a notification claim: `until` = its writer's now + the
 * claim's length) holds. No instance writes one that lasts longer than `lengthMs`; one that reaches
 * more than twice that beyond now (clocks a little apart stay well within) is no live instance's and
 * counts as lapsed (`now`), so a far-future claim can never keep every instance away.
 */
export function claimHeldUntil(until: string, now: number, lengthMs: number): number {
  const ms = parseDocumentTime(until);
  return ms - now > 2 * lengthMs ? now : ms;
}

/**
 * How long an Operation document lives (the Operations container's default TTL): no deadline lies
 * further than this past an operation's start, since its document is gone by then.
 */
export const OPERATION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

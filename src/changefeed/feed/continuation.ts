/**
 * Conversion between a lease's raw change feed etag (.NET's `ContinuationToken`, e.g. `"\"42\""`)
 * and the JS SDK's JSON continuation:
 *
 *   {"rid":"<container _rid>","Continuation":[{"minInclusive":"","maxExclusive":"FF","continuationToken":"\"42\""}]}
 *
 * Traps:
 * - the SDK compares `rid` with the container's `_rid` and refuses a token of another container;
 * - an empty `continuationToken` makes the SDK read that range from the beginning (it sends no
 *   `If-None-Match`), which is exactly a lease that was created with "beginning";
 * - after a split the SDK keeps one entry per child range (first the ones still to visit, the one
 *   just read last); several entries for one lease is how a split is noticed.
 */

export interface RangeContinuation {
  min: string;
  max: string;
  /** Raw etag with quotes, or `null` when the range was never read (SDK `""`). */
  etag: string | null;
}

export interface ParsedContinuation {
  rid: string;
  ranges: RangeContinuation[];
}

interface SdkContinuationJson {
  rid: string;
  Continuation: Array<{ minInclusive: string; maxExclusive: string; continuationToken?: string | null }>;
}

export function toSdkContinuation(rid: string, ranges: readonly RangeContinuation[]): string {
  const json: SdkContinuationJson = {
    rid,
    Continuation: ranges.map((r) => ({ minInclusive: r.min, maxExclusive: r.max, continuationToken: r.etag ?? '' })),
  };
  return JSON.stringify(json);
}

export function parseSdkContinuation(token: string): ParsedContinuation {
  const json = JSON.parse(token) as Partial<SdkContinuationJson>;
  if (typeof json.rid !== 'string' || !Array.isArray(json.Continuation)) {
    throw new Error(`not a change feed continuation of a feed range: ${token.slice(0, 200)}`);
  }
  return {
    rid: json.rid,
    ranges: json.Continuation.map((c) => ({
      min: c.minInclusive,
      max: c.maxExclusive,
      etag: c.continuationToken ? c.continuationToken : null,
    })),
  };
}

/** `"\"42\""` → 42; `null`/unparseable → undefined. */
export function lsnOfEtag(etag: string | null | undefined): number | undefined {
  if (!etag) return undefined;
  const n = Number(etag.replace(/"/g, ''));
  return Number.isFinite(n) ? n : undefined;
}

/** 41 → `"\"41\""`: the etag that makes the next read start with LSN 42. */
export function etagOfLsn(lsn: number): string {
  return `"${lsn}"`;
}

/** Orders child ranges by their lower bound (the SDK's queue order is not meaningful to us). */
export function sortRanges<T extends { min: string }>(ranges: readonly T[]): T[] {
  return [...ranges].sort((a, b) => (a.min < b.min ? -1 : a.min > b.min ? 1 : 0));
}

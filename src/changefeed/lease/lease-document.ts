import { leaseId, leaseTokenOf } from './lease-ids';

/**
 * A lease document, field for field the .NET v3 processor's EPK-range lease
 * (`DocumentServiceLeaseCoreEpk`, `version: 1`).
 *
 * Why version 1 and not 0 (pk range ids): the JS SDK only names ranges by their effective
 * partition key bounds (`getFeedRanges()`, continuation tokens), never by pk range id, and the
 * children of a split are again EPK ranges; .NET's own pull-model processor writes version 1 for
 * the same reason, so a mixed fleet agrees on tokens.
 */
export interface LeaseDocument {
  id: string;
  version: 1;
  /** `"{min}-{max}"` */
  LeaseToken: string;
  FeedRange: { Range: { min: string; max: string } };
  /** Instance name; `null` = released (anyone may take it at once). */
  Owner: string | null;
  /** The raw change feed etag of the last checkpoint, quotes included (`"\"42\""`); `null` = read from the beginning. */
  ContinuationToken: string | null;
  /** Client UTC time of the last write (ISO 8601); expiry is `timestamp + leaseExpirationMs < now`. */
  timestamp: string;
  /** Free string map, copied to the children of a split. */
  properties: Record<string, string>;
  Mode: typeof INCREMENTAL_FEED_MODE;
  /** Present in a lease container partitioned on `/partitionKey` (the document's partition key value). */
  partitionKey?: string;
  _etag?: string;
  _ts?: number;
}

const INCREMENTAL_FEED_MODE = 'Incremental Feed';

export interface FeedRangeBounds {
  min: string;
  max: string;
}

export function createLeaseDocument(args: {
  prefix: string;
  range: FeedRangeBounds;
  continuationToken: string | null;
  owner: string | null;
  nowMs: number;
  properties?: Record<string, string>;
}): LeaseDocument {
  const token = leaseTokenOf(args.range);
  return {
    id: leaseId(args.prefix, token),
    version: 1,
    LeaseToken: token,
    FeedRange: { Range: { min: args.range.min, max: args.range.max } },
    Owner: args.owner,
    ContinuationToken: args.continuationToken,
    timestamp: new Date(args.nowMs).toISOString(),
    properties: { ...(args.properties ?? {}) },
    Mode: INCREMENTAL_FEED_MODE,
  };
}

export function rangeOf(lease: LeaseDocument): FeedRangeBounds {
  return { min: lease.FeedRange.Range.min, max: lease.FeedRange.Range.max };
}

/** Last write time in ms; falls back to the server `_ts` (seconds) as .NET does when `timestamp` is absent. */
export function leaseTimestampMs(lease: { timestamp?: string; _ts?: number }): number {
  const parsed = lease.timestamp ? Date.parse(lease.timestamp) : NaN;
  if (!Number.isNaN(parsed)) return parsed;
  return (lease._ts ?? 0) * 1000;
}

export function isExpired(lease: { timestamp?: string; _ts?: number }, nowMs: number, leaseExpirationMs: number): boolean {
  return leaseTimestampMs(lease) + leaseExpirationMs < nowMs;
}

/** Strips server fields before a replace (the SDK would send them back otherwise). */
export function toWritable(lease: LeaseDocument): LeaseDocument {
  const { _etag: _e, _ts: _t, ...rest } = lease as LeaseDocument & Record<string, unknown>;
  for (const key of Object.keys(rest)) if (key.startsWith('_')) delete rest[key];
  return rest as LeaseDocument;
}

/**
 * Shape check for documents read back from the store (another writer may have put anything there).
 * Version-0 leases (partition key range ids) are not leases of this processor: see `version0.ts`.
 */
export function isLeaseDocument(value: unknown): value is LeaseDocument {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  const range = (v.FeedRange as { Range?: { min?: unknown; max?: unknown } } | undefined)?.Range;
  return (
    typeof v.id === 'string' &&
    v.version === 1 &&
    typeof v.LeaseToken === 'string' &&
    range !== undefined &&
    typeof range.min === 'string' &&
    typeof range.max === 'string' &&
    (v.Owner === null || v.Owner === undefined || typeof v.Owner === 'string') &&
    (v.ContinuationToken === null || v.ContinuationToken === undefined || typeof v.ContinuationToken === 'string')
  );
}

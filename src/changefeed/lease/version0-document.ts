import type { FeedRangeBounds } from './lease-document';

/**
 * A version-0 lease document as read (one per partition key range, see `version0.ts` for the
 * takeover). Apart from the takeover so that the lease store, which lists and deletes these, and the
 * takeover, which uses the store, do not import each other.
 */
export interface Version0Lease {
  id: string;
  rangeId: string;
  range?: FeedRangeBounds;
  owner: string | null;
  continuation: string | null;
  properties: Record<string, string>;
  timestamp?: string;
  _ts?: number;
  partitionKey?: string;
}

/** Parses a document as a version-0 lease (undefined for anything else, version-1 leases included). */
export function asVersion0Lease(doc: unknown): Version0Lease | undefined {
  if (doc === null || typeof doc !== 'object') return undefined;
  const v = doc as Record<string, unknown>;
  if (v.version !== undefined && v.version !== 0) return undefined;
  const rangeId = typeof v.LeaseToken === 'string' ? v.LeaseToken : typeof v.PartitionId === 'string' ? v.PartitionId : undefined;
  if (typeof v.id !== 'string' || rangeId === undefined) return undefined;
  const r = (v.FeedRange as { Range?: { min?: unknown; max?: unknown } } | undefined)?.Range;
  return {
    id: v.id,
    rangeId,
    range: r && typeof r.min === 'string' && typeof r.max === 'string' ? { min: r.min, max: r.max } : undefined,
    owner: typeof v.Owner === 'string' && v.Owner !== '' ? v.Owner : null,
    continuation: typeof v.ContinuationToken === 'string' ? v.ContinuationToken : null,
    properties: isStringMap(v.properties) ? v.properties : {},
    timestamp: typeof v.timestamp === 'string' ? v.timestamp : undefined,
    _ts: typeof v._ts === 'number' ? v._ts : undefined,
    partitionKey: typeof v.partitionKey === 'string' ? v.partitionKey : undefined,
  };
}

function isStringMap(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((x) => typeof x === 'string');
}

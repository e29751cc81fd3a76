import type { LeaseDocument } from './lease-document';

/**
 * Handing a lease over on request, through its document alone (so a request survives the
 * requester, and nothing has to reach the owner over the network):
 *
 * - An operator tool writes `properties.releaseRequestedAt` (If-Match, the owner unchanged).
 * - The owner's next lease write (renewal or checkpoint, within `leaseRenewIntervalMs`) meets the
 *   new etag, re-reads the document and so sees the request; it stops reading, writes its held
 *   checkpoint, and releases the lease (Owner null) with `handedOverBy`/`handedOverAt` set and the
 *   request cleared. Only then can another instance read the range: never two readers at once.
 * - For one lease expiry after that, the instance that handed it over neither takes it back nor
 *   steals it back, and any other instance takes it even past its fair share, so another instance
 *   gets it at its next balancing cycle; later (a fleet of one) the first may take it back.
 *
 * The properties are free strings of the .NET lease schema: a .NET processor keeps them and ignores them.
 */
export const HAND_OVER = Object.freeze({
  /** ISO time the hand-over was requested at. */
  requestedAt: 'releaseRequestedAt',
  /** Instance that released the lease on request. */
  by: 'handedOverBy',
  /** ISO time it did. */
  at: 'handedOverAt',
  /**
   * A requested move of the position: the JSON of the continuation to restart from (a raw etag, or
   * null for the beginning). The owner stops reading and releases the lease with that continuation.
   */
  resetTo: 'continuationResetTo',
});

/** The continuation a pending reset asks for (`null`: the beginning), if one is pending and well formed. */
export function resetRequested(lease: Pick<LeaseDocument, 'properties'>): { continuation: string | null } | undefined {
  const raw = lease.properties?.[HAND_OVER.resetTo];
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    return value === null || typeof value === 'string' ? { continuation: value } : undefined;
  } catch {
    return undefined;
  }
}

/** The time the lease's hand-over was requested at, if it is pending. */
export function releaseRequestedAt(lease: Pick<LeaseDocument, 'properties'>): string | undefined {
  return lease.properties?.[HAND_OVER.requestedAt];
}

/** The properties without a pending request, hand-over or reset (what acquiring and releasing write). */
export function withoutRequest(properties: Record<string, string> | undefined): Record<string, string> {
  const { [HAND_OVER.requestedAt]: _request, [HAND_OVER.resetTo]: _reset, ...rest } = properties ?? {};
  return rest;
}

/**
 * True when `by` (any instance when undefined) handed this lease over less than `windowMs` ago:
 * the one that did leaves it to the others, which take it at once.
 */
export function handedOverRecentlyBy(
  lease: Pick<LeaseDocument, 'properties'>,
  by: string | undefined,
  nowMs: number,
  windowMs: number,
): boolean {
  const who = lease.properties?.[HAND_OVER.by];
  if (who === undefined || (by !== undefined && who !== by)) return false;
  const at = Date.parse(lease.properties[HAND_OVER.at] ?? '');
  return !Number.isNaN(at) && nowMs - at < windowMs;
}

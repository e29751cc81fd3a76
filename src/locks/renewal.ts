/**
 * When a held lock must be renewed: pure arithmetic, table-tested.
 *
 * Cosmos expires a document at `_ts + ttl` seconds, `_ts` being the write time truncated to the
 * second on the server's clock. Locally, the write happened after the request was sent, so
 * `sentAt − 1 s + ttl` can never be later than the real expiry whatever the clock skew; `_ts`
 * itself is used when it is earlier (our clock ahead). The renewal is due `renewMarginMs` before
 * that estimate (the reference's "renew at `_ts + ttl − 1 s`" with a 1 s margin).
 */
import { TTL_RESOLUTION_MS } from './options';

export interface LeaseWrite {
  /** Local time (ms) the create/replace request was sent. */
  readonly sentAtMs: number;
  /** `_ts` of the written document (seconds), when the answer had it. */
  readonly tsSeconds?: number;
  readonly ttlSeconds: number;
}

/** The earliest instant (local ms) the lock document may expire. */
export function expiryEstimateMs(write: LeaseWrite): number {
  const base = Math.min(write.sentAtMs - TTL_RESOLUTION_MS, write.tsSeconds === undefined ? Infinity : write.tsSeconds * 1000);
  return base + write.ttlSeconds * 1000;
}

/** When to renew (local ms). */
export function renewalDueMs(write: LeaseWrite, renewMarginMs: number): number {
  return expiryEstimateMs(write) - renewMarginMs;
}

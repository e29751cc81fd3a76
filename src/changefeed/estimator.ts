import type { Container } from '@azure/cosmos';
import { ChangeFeedStartFrom } from '@azure/cosmos';
import type { LeaseDocument } from './lease/lease-document';
import { rangeOf } from './lease/lease-document';
import { toSdkContinuation } from './feed/continuation';
import { readNextRecovering } from './feed/routing-map';

/**
 * Lag per lease with the .NET estimator's method: read once from the lease's continuation with
 * `maxItemCount: 1`; the latest LSN of the range comes from `x-ms-session-token`
 * (`{range}:{version}#{lsn}#…`); `lag = latestLSN − (firstItem._lsn − 1)`; 0 on 304. Lag counts
 * transactions (LSNs), not documents. One read per lease per estimate: call it on demand.
 */

/** Latest global LSN in a session token; the largest when it names several ranges (during a split). */
export function latestLsnOfSessionToken(sessionToken: string | undefined): number | undefined {
  if (!sessionToken) return undefined;
  let best: number | undefined;
  for (const part of sessionToken.split(',')) {
    const afterColon = part.slice(part.indexOf(':') + 1);
    const fields = afterColon.split('#');
    // "1:-1#42#3=40" (v2: version#globalLsn#regional…) or legacy "1:42".
    const candidate = Number(fields.length >= 2 ? fields[1] : fields[0]);
    if (Number.isFinite(candidate)) best = best === undefined ? candidate : Math.max(best, candidate);
  }
  return best;
}

export interface LagRead {
  statusCode: number;
  sessionToken?: string;
  /** `_lsn` of the first document of the page, when there is one. */
  firstItemLsn?: number;
}

/**
 * The estimator's arithmetic. 304 → 0. A page whose numbers cannot be read reports 1 ("there is
 * work, amount unknown"), as .NET does.
 */
export function lagOf(read: LagRead): number {
  if (read.statusCode === 304) return 0;
  const latest = latestLsnOfSessionToken(read.sessionToken);
  if (latest === undefined || read.firstItemLsn === undefined) return 1;
  const lastProcessed = read.firstItemLsn - 1;
  if (lastProcessed < 0) return 1;
  return Math.max(0, latest - lastProcessed);
}

export async function estimateLeaseLag(feedContainer: Container, containerRid: string, lease: LeaseDocument): Promise<number> {
  const range = rangeOf(lease);
  const iterator = feedContainer.items.getChangeFeedIterator<{ _lsn?: number }>({
    maxItemCount: 1,
    changeFeedStartFrom: ChangeFeedStartFrom.Continuation(
      toSdkContinuation(containerRid, [{ min: range.min, max: range.max, etag: lease.ContinuationToken }]),
    ),
  });
  const response = await readNextRecovering(feedContainer, iterator);
  const first = response.result?.[0];
  return lagOf({
    statusCode: response.statusCode,
    sessionToken: response.sessionToken ?? (response.headers['x-ms-session-token'] as string | undefined),
    firstItemLsn: typeof first?._lsn === 'number' ? first._lsn : undefined,
  });
}

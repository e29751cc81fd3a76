import type { Container, FeedRange } from '@azure/cosmos';
import { ChangeFeedStartFrom, StatusCodes } from '@azure/cosmos';
import type { StartFrom } from '../options';
import { etagOfLsn, parseSdkContinuation } from '../feed/continuation';
import { readNextRecovering } from '../feed/routing-map';

/**
 * Resolves a start position to the raw etag persisted in a new lease, so the lease never depends
 * on when its first reader happens to start:
 * - beginning → `null` (the SDK reads an empty continuation from the beginning);
 * - now → the range's current LSN (a "Now" read answers 304 with it as etag);
 * - time → the LSN just before the first change after that time (a "Time" read of one item:
 *   `_lsn − 1`), or the current LSN when nothing changed since.
 */
export async function resolveStartEtag(feedContainer: Container, range: FeedRange, startFrom: StartFrom): Promise<string | null> {
  if (startFrom === 'beginning') return null;
  const iterator = feedContainer.items.getChangeFeedIterator<{ _lsn?: number }>({
    maxItemCount: 1,
    changeFeedStartFrom: startFrom === 'now' ? ChangeFeedStartFrom.Now(range) : ChangeFeedStartFrom.Time(startFrom.time, range),
  });
  const response = await readNextRecovering(feedContainer, iterator);
  const first = response.result?.[0];
  if (response.statusCode === StatusCodes.Ok && typeof first?._lsn === 'number') return etagOfLsn(first._lsn - 1);
  const fromToken = response.continuationToken ? parseSdkContinuation(response.continuationToken).ranges : [];
  const etag = fromToken.length === 1 ? fromToken[0].etag : (response.headers.etag as string | undefined);
  if (!etag) throw new Error(`change feed read for start position answered ${response.statusCode} without an etag`);
  return etag;
}

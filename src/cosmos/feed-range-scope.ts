/**
 * Queries scoped to a feed range: an EPK range [min, max) as a change-feed lease holds it ("" … "FF").
 *
 * The service takes such a query the way the .NET and Java SDKs send it for a FeedRange: once per
 * physical partition overlapping the range, each request naming the partition
 * (`x-ms-documentdb-partitionkeyrangeid`) and, when the range covers only part of it, that part
 * (`x-ms-start-epk`, `x-ms-end-epk`, `x-ms-read-key-type: EffectivePartitionKeyRange`, as
 * @azure/cosmos itself sends after a split). @azure/cosmos 4.9 takes no feed range on queries
 * (FeedOptions has none), so the headers go as the query's `initialHeaders`: a query naming its
 * partition is served by it alone, with no query plan and no fan-out, and paged by continuation.
 */
import type { Container, CosmosHeaders } from '@azure/cosmos';

export interface EpkRange {
  readonly min: string;
  readonly max: string;
}

/** One physical partition and the part of the feed range it holds. */
export interface FeedRangeScope {
  readonly partitionKeyRangeId: string;
  /** The part of the feed range in this partition; absent when the feed range covers all of it. */
  readonly epk?: EpkRange;
}

function lower(a: string, b: string): string {
  return a < b ? a : b;
}

function higher(a: string, b: string): string {
  return a > b ? a : b;
}

/** The physical partitions overlapping `range`, in EPK order, read afresh (a split or merge shows at once). */
export async function feedRangeScopes(container: Container, range: EpkRange): Promise<FeedRangeScope[]> {
  const { resources } = await container.readPartitionKeyRanges().fetchAll();
  const scopes: FeedRangeScope[] = [];
  for (const pk of [...resources].sort((a, b) => (a.minInclusive < b.minInclusive ? -1 : 1))) {
    const min = higher(range.min, pk.minInclusive);
    const max = lower(range.max, pk.maxExclusive);
    if (min >= max) continue;
    const whole = min === pk.minInclusive && max === pk.maxExclusive;
    scopes.push({ partitionKeyRangeId: pk.id, ...(whole ? {} : { epk: { min, max } }) });
  }
  return scopes;
}

/** The request headers that restrict a query to `scope`. */
export function feedRangeHeaders(scope: FeedRangeScope): CosmosHeaders {
  return {
    'x-ms-documentdb-partitionkeyrangeid': scope.partitionKeyRangeId,
    ...(scope.epk
      ? { 'x-ms-start-epk': scope.epk.min, 'x-ms-end-epk': scope.epk.max, 'x-ms-read-key-type': 'EffectivePartitionKeyRange' }
      : {}),
  };
}

import type { Container } from '@azure/cosmos';
import { ChangeFeedConfigurationError } from '../errors';
import { createLeaseDocument, isExpired, type FeedRangeBounds } from './lease-document';
import type { LeaseStore } from './lease-store';

/**
 * Version-0 leases: one per partition key range (`LeaseToken`/`PartitionId` = the range id, e.g.
 * `"0"`), written by .NET processors before EPK leases and by the v2 change feed library, under the
 * same id prefix. This processor reads EPK ranges only, so at start it takes them over:
 *
 * - a version-0 lease owned and not expired means an older fleet is running: start fails, naming it;
 * - otherwise each becomes a version-1 lease over its range's EPK bounds (its `FeedRange` if it has one,
 *   else the bounds of its partition key range), keeping `ContinuationToken` and `properties`, released;
 *   when a version-1 lease of the prefix already overlaps that range, nothing is copied (the newer
 *   lease's position stands, and two leases never cover one range); the version-0 document is then
 *   deleted, so the takeover happens once.
 * - a version-0 lease whose range no longer exists and that carries no `FeedRange` cannot be placed:
 *   start fails, naming it (delete it, and that range is read from `startFrom`).
 */
export interface Version0Deps {
  feedContainer: Container;
  store: LeaseStore;
  nowMs: number;
  leaseExpirationMs: number;
}

/** Takes over the version-0 leases of the store's prefix as described above; returns how many were taken over. */
export async function adoptVersion0Leases(deps: Version0Deps): Promise<number> {
  const old = await deps.store.listVersion0();
  if (old.length === 0) return 0;
  const live = old.find((l) => l.owner !== null && !isExpired(l, deps.nowMs, deps.leaseExpirationMs));
  if (live) {
    throw new ChangeFeedConfigurationError(
      `lease ${live.id} is a version-0 lease (partition key range ${live.rangeId}) held by ${live.owner}: an older .NET change feed processor is running under the same processor name; stop it, and this processor takes its leases over once they are released or expired`,
    );
  }
  const bounds = await partitionKeyRangeBounds(deps.feedContainer);
  const current = await deps.store.list();
  for (const lease of old) {
    const range = lease.range ?? bounds.get(lease.rangeId);
    if (!range) {
      throw new ChangeFeedConfigurationError(
        `version-0 lease ${lease.id} names partition key range ${lease.rangeId}, which no longer exists, and carries no FeedRange: delete that document; its range is then read from startFrom`,
      );
    }
    if (!current.some((l) => overlaps(l.FeedRange.Range, range))) {
      const adopted = createLeaseDocument({
        prefix: deps.store.prefix,
        range,
        continuationToken: lease.continuation,
        owner: null,
        nowMs: deps.nowMs,
        properties: lease.properties,
      });
      const { lease: stored } = await deps.store.createIfNotExists(adopted);
      current.push(stored);
    }
    await deps.store.deleteVersion0(lease);
  }
  return old.length;
}

async function partitionKeyRangeBounds(container: Container): Promise<Map<string, FeedRangeBounds>> {
  const { resources } = await container.readPartitionKeyRanges().fetchAll();
  return new Map(resources.map((r) => [r.id, { min: r.minInclusive, max: r.maxExclusive }]));
}

/** EPK ranges are half-open hex strings ("" … "FF") compared as strings. */
function overlaps(a: FeedRangeBounds, b: FeedRangeBounds): boolean {
  return a.min < b.max && b.min < a.max;
}

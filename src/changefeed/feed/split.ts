import type { Emit } from '../events';
import type { LeaseDocument } from '../lease/lease-document';
import { createLeaseDocument } from '../lease/lease-document';
import type { LeaseStore } from '../lease/lease-store';
import type { RangeContinuation } from './continuation';
import { sortRanges } from './continuation';

export interface SplitDeps {
  store: LeaseStore;
  parent: LeaseDocument;
  children: RangeContinuation[];
  /** Owner written into new child leases: this instance, or null when it is at its lease limit. */
  childOwner: string | null;
  nowMs: number;
  emit: Emit;
}

/**
 * Replaces a parent lease by one lease per child range, each starting at the position the SDK
 * kept for it (the parent's continuation, or further if the child was already read), then deletes
 * the parent and verifies it is gone. Child ids are deterministic: a split repeated after a crash
 * (parent still there, some children already created) finds the existing children and keeps them,
 * so there is never more than one lease per range. Returns the child leases as stored.
 */
export async function replaceSplitLease(deps: SplitDeps): Promise<LeaseDocument[]> {
  const stored: LeaseDocument[] = [];
  for (const child of sortRanges(deps.children)) {
    const lease = createLeaseDocument({
      prefix: deps.store.prefix,
      range: { min: child.min, max: child.max },
      continuationToken: child.etag,
      owner: deps.childOwner,
      nowMs: deps.nowMs,
      properties: deps.parent.properties,
    });
    const result = await deps.store.createIfNotExists(lease);
    if (result.created) deps.emit({ type: 'changefeed.lease.created', leaseToken: lease.LeaseToken, continuation: child.etag });
    stored.push(result.lease);
  }
  await deps.store.delete(deps.parent);
  deps.emit({ type: 'changefeed.lease.split', leaseToken: deps.parent.LeaseToken, children: stored.map((l) => l.LeaseToken) });
  return stored;
}

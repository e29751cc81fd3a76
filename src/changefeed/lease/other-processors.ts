import { isExpired, isLeaseDocument } from './lease-document';

/**
 * Another processor (another lease prefix) holding leases on the same monitored container: two
 * fleets under different names each read every change, so each change is handled twice. Found in
 * the lease container by the part of the lease id that names the monitored container
 * (`{accountHost}_{databaseRid}_{containerRid}..`), which every processor's ids share.
 */
export interface OtherProcessor {
  processorName: string;
  /** Its leases whose owner renewed them within the lease expiry. */
  liveLeases: number;
  /** The instances owning those, sorted. */
  owners: string[];
}

/** `{accountHost}_{databaseRid}_{containerRid}..`: the part of every lease id that names the monitored container. */
export function monitoredScopeMarker(prefix: string, processorName: string): string {
  return `${prefix.slice(processorName.length)}..`;
}

/** The other processors among `docs` (anything in the lease container), with live leases only. */
export function otherProcessorsIn(
  docs: readonly unknown[],
  own: { prefix: string; processorName: string },
  nowMs: number,
  leaseExpirationMs: number,
): OtherProcessor[] {
  const marker = monitoredScopeMarker(own.prefix, own.processorName);
  const found = new Map<string, Set<string>>();
  const live = new Map<string, number>();
  for (const doc of docs) {
    if (!isLeaseDocument(doc)) continue;
    const at = doc.id.indexOf(marker);
    if (at <= 0 || doc.id.startsWith(`${own.prefix}..`)) continue;
    if (!doc.Owner || isExpired(doc, nowMs, leaseExpirationMs)) continue;
    const name = doc.id.slice(0, at);
    found.set(name, (found.get(name) ?? new Set()).add(doc.Owner));
    live.set(name, (live.get(name) ?? 0) + 1);
  }
  return [...found.entries()]
    .map(([processorName, owners]) => ({ processorName, liveLeases: live.get(processorName) ?? 0, owners: [...owners].sort() }))
    .sort((a, b) => a.processorName.localeCompare(b.processorName));
}

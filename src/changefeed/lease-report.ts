import type { Container } from '@azure/cosmos';
import { estimateLeaseLag } from './estimator';
import { configuredEndpointOf } from './lease/account-endpoint';
import { isExpired, isLeaseDocument, leaseTimestampMs, rangeOf, type LeaseDocument } from './lease/lease-document';
import { accountHostOf, isLeaseIdOf, leasePrefix } from './lease/lease-ids';
import { DEFAULTS } from './options';
import { otherProcessorsIn } from './lease/other-processors';

/**
 * The leases of one processor, read straight from the lease container with no running instance
 * (the .NET estimator's role): owner, range, checkpoint, last write, whether expired, and the lag
 * estimated the .NET way (one change feed read of `maxItemCount: 1` from the checkpoint, see
 * `estimator.ts`). Lease documents of other prefixes in the same container are named, not shown.
 */
export interface LeaseReport {
  processorName: string;
  /** `{processorName}{accountHost}_{databaseRid}_{containerRid}`, computed exactly as the processor does. */
  prefix: string;
  /** Sorted by range. */
  leases: Array<{
    leaseToken: string;
    range: { min: string; max: string };
    owner: string | null;
    /** Raw etag of the last checkpoint; null = from the beginning. */
    continuation: string | null;
    /** ISO time of the lease's last write. */
    lastWrite: string;
    expired: boolean;
    /** Changes (LSNs) not yet processed; null when not estimated or the estimate failed (`lagError`). */
    lag: number | null;
    lagError?: string;
    /** The lease's free string map (what the owner wrote there). */
    properties: Record<string, string>;
  }>;
  /** Sum of the lags that could be estimated. */
  totalLag: number;
  /** Leases whose lag could not be estimated. */
  unknownLag: number;
  /** Lease prefixes of other processors or containers found in the same lease container. */
  otherPrefixes: string[];
  /**
   * Other processors with live leases (by this report's lease expiry) on the same monitored
   * container: a second fleet under another name reads every change too.
   */
  otherProcessors: Array<{ processorName: string; liveLeases: number; owners: string[] }>;
}

/**
 * Reads the {@link LeaseReport} of processor `processorName` on `feedContainer`: one query of the
 * lease container, plus one change feed read per lease when `estimateLag` (the default).
 */
export async function readLeaseReport(options: {
  feedContainer: Container;
  leaseContainer: Container;
  processorName: string;
  /** @defaultValue `DEFAULTS.leaseExpirationMs` */
  leaseExpirationMs?: number;
  /** @defaultValue true */
  estimateLag?: boolean;
  now?: () => number;
}): Promise<LeaseReport> {
  const { feedContainer, leaseContainer } = options;
  const { prefix, containerRid } = await leasePrefixOf(feedContainer, options.processorName);
  const { resources } = await leaseContainer.items.query<unknown>('SELECT * FROM c').fetchAll();
  const mine: LeaseDocument[] = [];
  const others = new Set<string>();
  for (const doc of resources) {
    if (!isLeaseDocument(doc)) continue;
    if (isLeaseIdOf(prefix, doc.id)) mine.push(doc);
    else if (doc.id.includes('..')) others.add(doc.id.slice(0, doc.id.indexOf('..')));
  }
  const now = (options.now ?? Date.now)();
  const expiration = options.leaseExpirationMs ?? DEFAULTS.leaseExpirationMs;
  const leases = await Promise.all(
    mine.map(async (lease): Promise<LeaseReport['leases'][number]> => {
      const row: LeaseReport['leases'][number] = {
        leaseToken: lease.LeaseToken,
        range: rangeOf(lease),
        owner: lease.Owner ?? null,
        continuation: lease.ContinuationToken ?? null,
        lastWrite: new Date(leaseTimestampMs(lease)).toISOString(),
        expired: isExpired(lease, now, expiration),
        lag: null,
        properties: { ...(lease.properties ?? {}) },
      };
      if (options.estimateLag ?? true) {
        try {
          row.lag = await estimateLeaseLag(feedContainer, containerRid, lease);
        } catch (err) {
          row.lagError = (err as Error).message?.split('\n')[0] ?? String(err);
        }
      }
      return row;
    }),
  );
  leases.sort((a, b) => (a.range.min < b.range.min ? -1 : a.range.min > b.range.min ? 1 : 0));
  return {
    processorName: options.processorName,
    prefix,
    leases,
    totalLag: leases.reduce((sum, l) => sum + (l.lag ?? 0), 0),
    unknownLag: leases.filter((l) => l.lag === null).length,
    otherPrefixes: [...others].sort(),
    otherProcessors: otherProcessorsIn(resources, { prefix, processorName: options.processorName }, now, expiration),
  };
}

/** The lease id prefix of processor `processorName` on `feedContainer`, computed exactly as the processor does. */
export async function leasePrefixOf(feedContainer: Container, processorName: string): Promise<{ prefix: string; containerRid: string }> {
  const [{ resource: container }, { resource: database }] = await Promise.all([feedContainer.read(), feedContainer.database.read()]);
  if (!container?._rid || !database?._rid) throw new Error(`container ${feedContainer.id} or its database has no _rid`);
  // The configured endpoint, as the processor (and .NET, KEDA) build the prefix: never the regional write host.
  const endpoint = configuredEndpointOf(feedContainer.database.client);
  if (!endpoint) throw new Error('cannot tell the endpoint the CosmosClient was created with');
  const prefix = leasePrefix({
    processorName,
    accountHost: accountHostOf(endpoint),
    databaseRid: database._rid,
    containerRid: container._rid,
  });
  return { prefix, containerRid: container._rid };
}

import type { Container } from '@azure/cosmos';
import {
  DEFAULTS,
  accountHostOf,
  configuredEndpointOf,
  estimateLeaseLag,
  isExpired,
  isLeaseDocument,
  isLeaseIdOf,
  leasePrefix,
  leaseTimestampMs,
  rangeOf,
  type LeaseDocument,
} from '@opstream/changefeed';
import { leaseOpsUrl } from './lease-ops-url';
// Not exported from src/changefeed/index.ts (yet): the estimator's one-read lag and the lease id
// and expiry rules. Kept to this one file so the switch to the index is one edit.

/**
 * The leases of one processor on the Operations container, read straight from the lease
 * container (no running instance needed): owner, range, checkpoint, last write, whether expired,
 * and lag estimated the .NET way (one change-feed read of `maxItemCount: 1` from the checkpoint).
 * Lease ids embed the account host and the database/container `_rid`s, so the prefix is computed
 * exactly as the processor computes it; lease documents of other prefixes are named, not shown.
 */
interface LeaseRow {
  leaseToken: string;
  range: { min: string; max: string };
  owner: string | null;
  /** Raw etag of the last checkpoint; null = from the beginning. */
  continuation: string | null;
  lastWrite: string;
  expired: boolean;
  /** Changes (LSNs) not yet processed; null when not estimated or the estimate failed (`lagError`). */
  lag: number | null;
  lagError?: string;
  /** Where the owner's ops server answers, when the owner wrote it into the lease (see lease-ops-url.ts). */
  opsUrl?: string;
}

export interface LeaseReport {
  processorName: string;
  prefix: string;
  leases: LeaseRow[];
  /** Sum of the lags that could be estimated. */
  totalLag: number;
  /** Leases whose lag could not be estimated. */
  unknownLag: number;
  /** Lease prefixes of other processors or containers found in the same lease container. */
  otherPrefixes: string[];
}

export interface LeaseReportOptions {
  feedContainer: Container;
  leaseContainer: Container;
  processorName: string;
  /** @defaultValue the change feed processor's DEFAULTS.leaseExpirationMs */
  leaseExpirationMs?: number;
  /** @defaultValue true */
  estimateLag?: boolean;
  now?: () => number;
}

export async function readLeaseReport(options: LeaseReportOptions): Promise<LeaseReport> {
  const { feedContainer, leaseContainer } = options;
  const [{ resource: container }, { resource: database }] = await Promise.all([feedContainer.read(), feedContainer.database.read()]);
  if (!container?._rid || !database?._rid) throw new Error(`container ${feedContainer.id} or its database has no _rid`);
  // The configured endpoint, as the processor (and .NET, KEDA) build the prefix: never the regional write host.
  const endpoint = configuredEndpointOf(feedContainer.database.client);
  if (!endpoint) throw new Error('cannot tell the endpoint the CosmosClient was created with');
  const prefix = leasePrefix({
    processorName: options.processorName,
    accountHost: accountHostOf(endpoint),
    databaseRid: database._rid,
    containerRid: container._rid,
  });
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
    mine.map(async (lease): Promise<LeaseRow> => {
      const row: LeaseRow = {
        leaseToken: lease.LeaseToken,
        range: rangeOf(lease),
        owner: lease.Owner ?? null,
        continuation: lease.ContinuationToken ?? null,
        lastWrite: new Date(leaseTimestampMs(lease)).toISOString(),
        expired: isExpired(lease, now, expiration),
        lag: null,
      };
      const opsUrl = leaseOpsUrl(lease);
      if (opsUrl) row.opsUrl = opsUrl;
      if (options.estimateLag ?? true) {
        try {
          row.lag = await estimateLeaseLag(feedContainer, container._rid, lease);
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
  };
}

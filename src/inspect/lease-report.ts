import { readLeaseReport as readChangeFeedLeases, type LeaseReport as ChangeFeedLeaseReport } from '@opstream/changefeed';
import { leaseOpsHost, leaseOpsUrl } from './lease-ops-url';

type ChangeFeedLeaseRow = ChangeFeedLeaseReport['leases'][number];

/** A lease as `opstream leases` shows it: the change feed's row, with where its owner's ops server answers. */
interface LeaseRow extends Omit<ChangeFeedLeaseRow, 'properties'> {
  /** Where the owner's ops server answers, when the owner wrote it into the lease (see lease-ops-url.ts). */
  opsUrl?: string;
  /** The host the owner runs on (its pod's name on Kubernetes), when it wrote it. */
  opsHost?: string;
}

/** The change feed package's lease report (owner, range, checkpoint, expiry, lag per lease), opstream's way. */
export interface LeaseReport extends Omit<ChangeFeedLeaseReport, 'leases'> {
  leases: LeaseRow[];
}

export async function readLeaseReport(options: Parameters<typeof readChangeFeedLeases>[0]): Promise<LeaseReport> {
  const report = await readChangeFeedLeases(options);
  return { ...report, leases: report.leases.map(toRow) };
}

function toRow({ properties, lag, lagError, ...rest }: ChangeFeedLeaseRow): LeaseRow {
  // Key order as before the report moved into the package: the JSON output stays the same.
  const row: LeaseRow = { ...rest, lag };
  const opsUrl = leaseOpsUrl({ Owner: rest.owner, properties });
  if (opsUrl) row.opsUrl = opsUrl;
  const opsHost = leaseOpsHost({ Owner: rest.owner, properties });
  if (opsHost) row.opsHost = opsHost;
  if (lagError !== undefined) row.lagError = lagError;
  return row;
}

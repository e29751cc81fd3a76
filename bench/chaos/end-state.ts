/**
 * What a chaos run left behind, read from outside opstream only: the Operations, Resources and
 * DeadLetters containers through the SDK, the CS simulator's `GET /_admin/clusters`, and the
 * notifications the ARM receiver recorded.
 */
import type { Database } from '@azure/cosmos';
import type { ArmEndpoint } from './arm-endpoint';
import type { ClustersService, LiveCluster } from './clusters-service';
import { retrying } from './util';

export interface OperationRow {
  readonly id: string;
  readonly partitionKey: string;
  readonly request: unknown;
  readonly status: unknown;
  readonly startTime: unknown;
  readonly lastTransitionTime: unknown;
  readonly notificationUri?: unknown;
}

export interface ResourceRow {
  readonly id: string;
  readonly resourceId: string;
  readonly resourceType: string;
  readonly internalId?: string;
  readonly pendingInternalId?: string;
}

export interface DeadLetterRow {
  readonly id: string;
  readonly reason: unknown;
  readonly source?: { container?: string; id?: string; partitionKey?: string; sizeBytes?: number };
  readonly error?: { name?: string; message?: string; path?: string };
  readonly truncated?: { cut?: string[]; originalBytes?: number; keptBytes?: number };
}

export interface EndState {
  readonly at: number;
  /** Every Operation but the malformed/hostile documents written on purpose. */
  readonly operations: readonly OperationRow[];
  /** The hostile-but-valid documents (quote-name Deletes), by id. */
  readonly hostile: readonly OperationRow[];
  readonly resources: readonly ResourceRow[];
  readonly deadLetters: readonly DeadLetterRow[];
  readonly clusters: readonly LiveCluster[];
  /** Notifications received per operation id. */
  readonly notifications: ReadonlyMap<string, number>;
  /** When the first notification of each operation arrived. */
  readonly firstNotifiedAt: ReadonlyMap<string, number>;
}

export async function readEndState(
  db: Database,
  cs: ClustersService,
  arm: ArmEndpoint,
  malformedIds: readonly string[],
  hostileIds: readonly string[],
): Promise<EndState> {
  const query = <T>(container: string, text: string, parameters: Array<{ name: string; value: string[] }> = []): Promise<T[]> =>
    retrying(async () => (await db.container(container).items.query<T>({ query: text, parameters }).fetchAll()).resources, 30_000);
  const fields = 'c.id, c.partitionKey, c.request, c.status, c.startTime, c.lastTransitionTime, c.notificationUri';
  const [ops, hostile, resources, deadLetters, clusters] = await Promise.all([
    query<OperationRow>('Operations', `SELECT ${fields} FROM c WHERE NOT ARRAY_CONTAINS(@bad, c.id)`, [
      { name: '@bad', value: [...malformedIds, ...hostileIds] },
    ]),
    hostileIds.length
      ? query<OperationRow>('Operations', `SELECT ${fields} FROM c WHERE ARRAY_CONTAINS(@ids, c.id)`, [
          { name: '@ids', value: [...hostileIds] },
        ])
      : Promise.resolve([]),
    query<ResourceRow>('Resources', 'SELECT c.id, c.resourceId, c.resourceType, c.internalId, c.pendingInternalId FROM c'),
    query<DeadLetterRow>('DeadLetters', 'SELECT c.id, c.reason, c.source, c.error, c.truncated FROM c'),
    retrying(() => cs.clusters(), 30_000),
  ]);
  return {
    at: Date.now(),
    operations: ops,
    hostile,
    resources,
    deadLetters,
    clusters,
    notifications: arm.countsByOperation(),
    firstNotifiedAt: arm.firstArrivals(),
  };
}

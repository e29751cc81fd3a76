/**
 * The Operations container: typed reads, the status transition helper, and the listing of
 * non-terminal operations a new lease owner needs (the change feed alone misses what is already
 * in progress).
 */
import { claimHeldUntil, parseDocumentTime } from '../domain/document-time';
import type { Container, SqlQuerySpec } from '@azure/cosmos';
import { boundedArmError } from '../domain/bounded-arm-error';
import { NON_TERMINAL_STATUSES, TERMINAL_STATUSES, isTerminal } from '../domain/statuses';
import type { ArmError, NotificationClaim, NotificationDeliveryRecord, Operation, OperationStatus, Stored } from '../domain/types';
import { effectivePartitionKey, rangeContains } from '@opstream/changefeed';
import { systemClock, type Clock } from '../util/clock';
import { feedRangeScopes, type EpkRange } from './feed-range-scope';
import {
  DocumentRepository,
  type DocumentRepositoryOptions,
  type ListResult,
  type Mutation,
  type UpdateOptions,
  type UpdateResult,
} from './document-repository';

export interface StatusChange {
  readonly status: OperationStatus;
  /** The error to record (cut to `ARM_ERROR_LIMITS`); `null` removes it; absent leaves it as it is. */
  readonly error?: ArmError | null;
  /**
   * Claimed for the writer when the change makes the operation terminal and it has a
   * `notificationUri`: the instance that ended the operation is the one that notifies ARM.
   */
  readonly notificationClaim?: NotificationClaim;
}

export interface NonTerminalQuery {
  /** Only these partitions (lower-cased subscription ids). An empty list lists nothing. */
  readonly partitionKeys?: readonly string[];
  /**
   * Only documents whose effective partition key falls in this feed range ([min, max) over EPK
   * strings, as a change-feed lease holds it): the query itself is scoped to it (see
   * `feed-range-scope.ts`), each result checked again here.
   */
  readonly feedRange?: EpkRange;
}

/** Non-terminal statuses (the work the backend has left). */
const ACTIVE_QUERY: SqlQuerySpec = {
  query: 'SELECT * FROM c WHERE ARRAY_CONTAINS(@statuses, c.status)',
  parameters: [{ name: '@statuses', value: [...NON_TERMINAL_STATUSES] }],
};

/** Terminal, with the ARM notification still to send. */
const NOTIFICATION_DUE_QUERY: SqlQuerySpec = {
  query: 'SELECT * FROM c WHERE IS_DEFINED(c.notificationUri) AND ARRAY_CONTAINS(@terminal, c.status)',
  parameters: [{ name: '@terminal', value: [...TERMINAL_STATUSES] }],
};

export class OperationsRepository {
  readonly documents: DocumentRepository<'operation'>;
  private readonly clock: Clock;

  /** `onWrite` hears of every Operation written here (the pipeline's echo filter), `onVersion` of every version read by id or written. */
  constructor(container: Container, options: { clock?: Clock } & DocumentRepositoryOptions<'operation'> = {}) {
    this.documents = new DocumentRepository(container, 'operation', { onWrite: options.onWrite, onVersion: options.onVersion });
    this.clock = options.clock ?? systemClock;
  }

  read(partitionKey: string, id: string): Promise<Stored<Operation> | undefined> {
    return this.documents.read(partitionKey, id);
  }

  create(operation: Operation): Promise<Stored<Operation>> {
    return this.documents.create(operation, operation.partitionKey);
  }

  /** `update`, for a mutation that applies only while ARM is still to be told (`notificationUri` set). */
  private updateWhileNotificationDue(
    partitionKey: string,
    id: string,
    mutate: Mutation<Operation>,
    options?: UpdateOptions,
  ): Promise<UpdateResult<Operation>> {
    return this.update(partitionKey, id, (current) => (current.notificationUri ? mutate(current) : undefined), options);
  }

  update(partitionKey: string, id: string, mutate: Mutation<Operation>, options?: UpdateOptions): Promise<UpdateResult<Operation>> {
    return this.documents.update(partitionKey, id, mutate, options);
  }

  /**
   * Moves the operation to `change.status` (and error). Writes only when status or error actually
   * change, stamping `lastTransitionTime`; a terminal operation never moves again (`unchanged`).
   */
  setStatus(partitionKey: string, id: string, change: StatusChange, options?: UpdateOptions): Promise<UpdateResult<Operation>> {
    return this.update(
      partitionKey,
      id,
      (current) => {
        if (isTerminal(current.status)) return undefined;
        const next: Operation = { ...current, status: change.status };
        if (change.error === null) delete next.error;
        // Error text comes from Clusters Service answers: bounded before it is stored (and notified, and published).
        else if (change.error !== undefined) next.error = boundedArmError(change.error);
        if (next.status === current.status && JSON.stringify(next.error) === JSON.stringify(current.error)) return undefined;
        next.lastTransitionTime = new Date(this.clock.now()).toISOString();
        if (change.notificationClaim && next.notificationUri && isTerminal(next.status)) next.notificationClaim = change.notificationClaim;
        return next;
      },
      options,
    );
  }

  /**
   * Records the CS href once the create was dispatched (after the Resource got it), and with `status`
   * (the status its request has while Clusters Service works) moves a non-terminal operation there in
   * the same write.
   */
  setInternalId(
    partitionKey: string,
    id: string,
    internalId: string,
    options?: UpdateOptions & { status?: OperationStatus },
  ): Promise<UpdateResult<Operation>> {
    const status = options?.status;
    return this.update(
      partitionKey,
      id,
      (current) => {
        const next: Operation = { ...current, internalId };
        if (status && !isTerminal(current.status) && current.status !== status) {
          next.status = status;
          next.lastTransitionTime = new Date(this.clock.now()).toISOString();
        }
        return next;
      },
      options,
    );
  }

  /**
   * Claims the delivery of the ARM notification for `claim.owner` unless another instance holds a
   * claim that has not lapsed at `now` (then `unchanged`, with the document showing that claim).
   * Written with If-Match, so of two instances racing for it one wins.
   */
  claimNotification(
    partitionKey: string,
    id: string,
    claim: NotificationClaim,
    now: number,
    options?: UpdateOptions,
  ): Promise<UpdateResult<Operation>> {
    return this.updateWhileNotificationDue(
      partitionKey,
      id,
      (current) => {
        const held = current.notificationClaim;
        if (held && held.owner !== claim.owner && claimHeldUntil(held.until, now, parseDocumentTime(claim.until) - now) > now)
          return undefined;
        return { ...current, notificationClaim: claim };
      },
      options,
    );
  }

  /**
   * Removes `notificationUri` (and its claim) once ARM was told, so it is told once; `delivered`
   * records the delivery in that same write (no write of its own).
   */
  clearNotificationUri(
    partitionKey: string,
    id: string,
    delivered?: NotificationDeliveryRecord,
    options?: UpdateOptions,
  ): Promise<UpdateResult<Operation>> {
    return this.updateWhileNotificationDue(
      partitionKey,
      id,
      (current) => {
        const next = { ...current };
        delete next.notificationUri;
        delete next.notificationClaim;
        // Failed attempts recorded since `delivered` was counted (by a copy read before them) still count.
        if (delivered) next.notificationDelivery = withAttemptsSince(delivered, current);
        return next;
      },
      options,
    );
  }

  /**
   * Records a failed attempt (`failing`) while the notification is still due and not claimed by
   * another instance than `owner`; otherwise `unchanged` (someone else delivers, or delivered).
   */
  recordNotificationAttempt(
    partitionKey: string,
    id: string,
    attempt: NotificationDeliveryRecord,
    owner: string,
    options?: UpdateOptions,
  ): Promise<UpdateResult<Operation>> {
    return this.updateWhileNotificationDue(
      partitionKey,
      id,
      (current) => {
        if (current.notificationClaim && current.notificationClaim.owner !== owner) return undefined;
        // An attempt counted by another instance since this one read the document keeps its count.
        return { ...current, notificationDelivery: withAttemptsSince(attempt, current) };
      },
      options,
    );
  }

  /**
   * Every operation not yet Succeeded/Failed/Canceled, optionally limited to partitions or a feed
   * range, collected: for listings bounded by their filter (one subscription's operations). What a
   * whole feed range holds is streamed by `pagesNeedingWork` instead.
   */
  async listNonTerminal(query: NonTerminalQuery = {}): Promise<ListResult<Operation>> {
    const pks = query.partitionKeys;
    if (pks && pks.length === 0) return { items: [], invalid: [] };
    if (query.feedRange) return collect(this.pagesInRange(ACTIVE_QUERY, query.feedRange, { pageSize: 100 }), pks);
    const parameters: Array<{ name: string; value: string[] }> = [{ name: '@statuses', value: [...NON_TERMINAL_STATUSES] }];
    let sql = ACTIVE_QUERY.query;
    if (pks && pks.length > 1) {
      sql += ' AND ARRAY_CONTAINS(@partitionKeys, c.partitionKey)';
      parameters.push({ name: '@partitionKeys', value: [...pks] });
    }
    return this.documents.query({ query: sql, parameters }, pks?.length === 1 ? { partitionKey: pks[0] } : {});
  }

  /**
   * What a new owner of a feed range must look at first (the change feed alone misses what is
   * already in progress): every non-terminal operation in it, then every terminal one whose ARM
   * notification is still due; invalid documents are reported apart. One page at a time, each
   * query scoped to the range (never the whole container): the next page is read when the caller
   * asks for it, so a caller that waits (a full queue) holds one page, and goes on where it stopped.
   */
  async *pagesNeedingWork(
    feedRange: EpkRange,
    options: { pageSize?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<ListResult<Operation>> {
    yield* this.pagesInRange(ACTIVE_QUERY, feedRange, options);
    yield* this.pagesInRange(NOTIFICATION_DUE_QUERY, feedRange, options);
  }

  /** The pages of `spec` over the physical partitions overlapping `range`, each query scoped to its part. */
  private async *pagesInRange(
    spec: SqlQuerySpec,
    range: EpkRange,
    options: { pageSize?: number; signal?: AbortSignal },
  ): AsyncGenerator<ListResult<Operation>> {
    for (const scope of await feedRangeScopes(this.documents.container, range)) {
      for await (const page of this.documents.queryPages(spec, { ...options, scope })) yield withinRange(page, range);
    }
  }
}

async function collect(
  pages: AsyncGenerator<ListResult<Operation>>,
  partitionKeys: readonly string[] | undefined,
): Promise<ListResult<Operation>> {
  const keep = (pk: unknown): boolean => partitionKeys === undefined || (typeof pk === 'string' && partitionKeys.includes(pk));
  const out: ListResult<Operation> = { items: [], invalid: [] };
  for await (const page of pages) {
    out.items.push(...page.items.filter((op) => keep(op.partitionKey)));
    out.invalid.push(...page.invalid.filter((e) => keep((e.document as { partitionKey?: unknown } | null)?.partitionKey)));
  }
  return out;
}

/**
 * Keeps what falls in `range` ([min, max) over EPK strings, as a change-feed lease holds it): the
 * query was scoped to it already; this is the check of each result. A document without a string
 * partition key is kept (it is reported as invalid anyway).
 */
function withinRange(result: ListResult<Operation>, range: EpkRange): ListResult<Operation> {
  const inRange = (pk: unknown): boolean => typeof pk !== 'string' || rangeContains(range, effectivePartitionKey(pk));
  return {
    items: result.items.filter((op) => inRange(op.partitionKey)),
    invalid: result.invalid.filter((e) => inRange((e.document as { partitionKey?: unknown } | null)?.partitionKey)),
  };
}

/** `record` numbered after every attempt `current` already counts: attempts recorded since it was read are not lost. */
function withAttemptsSince(record: NotificationDeliveryRecord, current: Operation): NotificationDeliveryRecord {
  return { ...record, attempts: Math.max(record.attempts, (current.notificationDelivery?.attempts ?? 0) + 1) };
}

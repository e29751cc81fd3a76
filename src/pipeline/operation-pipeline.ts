import type { Container } from '@azure/cosmos';
import { Subscription } from 'rxjs';
import {
  EVENTS,
  createChangeFeedStream,
  handleBatches,
  type ChangeFeedContext,
  type ChangeFeedEvent,
  type ChangeFeedProcessor,
  type ChangeFeedProcessorOptions,
} from '../changefeed';
import { cosmosStatus, isInvalidDocumentError, isRetriableCosmosFailure } from '../cosmos/errors';
import { isRetriable } from '../domain/errors';
import { resourceDocumentId } from '../domain/ids';
import { isTerminal } from '../domain/statuses';
import type { Operation, Stored } from '../domain/types';
import { effectivePartitionKey, rangeContains } from '../util/epk';
import { retry, type BackoffPolicy } from '../util/backoff';
import type { PipelineContext } from './context';
import { deadLetter, text, type DeadLetterReason } from './dead-letter';
import { KeyedScheduler } from './keyed-scheduler';
import type { OperationProcessor } from './operation-processor';
import type { Outcome } from './outcome';
import { OperationReconciler, type OperationRef } from './reconcile-operation';

/**
 * The pipeline: change-feed batches of the Operations container → validated operations (invalid
 * ones dead-lettered) → those with work left (non-terminal, or a pending ARM notification) →
 * keyed scheduler (one operation per resource at a time, oldest first) → processors.
 *
 * A batch is acknowledged (checkpointed) once what must be durable is: invalid documents are in
 * DeadLetters, and every operation with work left is in the scheduler, handled or parked. Handling
 * itself does not hold the feed back (a slow Clusters Service call on one operation must not delay
 * the next operation of the same range): an operation with work left stays non-terminal (or keeps
 * its notificationUri) in Cosmos until done, and whoever owns its range next lists those first.
 * Past `maxScheduled` operations in memory, a batch waits for its own handling (backpressure).
 */
export interface OperationPipelineOptions {
  /** Resources handled in parallel. @defaultValue 32 */
  concurrency?: number;
  /** Safety-net relist of every owned range. @defaultValue 300_000 */
  relistIntervalMs?: number;
  /** Consecutive non-retriable handler throws before an operation is dead-lettered (a dependency down is waited out). @defaultValue 8 */
  maxHandlerAttempts?: number;
  /** Operations in memory beyond which a batch waits for its own handling. @defaultValue 10_000 */
  maxScheduled?: number;
}

export interface OperationPipelineDeps {
  ctx: PipelineContext;
  registry: readonly OperationProcessor[];
  operationsContainer: Container;
  leasesContainer: Container;
  changefeed: ChangeFeedProcessorOptions;
}

const RELIST_RETRY: BackoffPolicy = { retries: 8, initialDelayMs: 250, maxDelayMs: 10_000, multiplier: 2, jitter: 0.2 };

interface ScheduledOperation extends OperationRef {
  epk: string;
  /** `_etag` of the version that scheduled it: its own write's echo needs no handling of its own. */
  etag?: string;
}

export class OperationPipeline {
  readonly processor: ChangeFeedProcessor;
  private readonly scheduler: KeyedScheduler<ScheduledOperation>;
  private readonly reconciler: OperationReconciler;
  private readonly subscriptions = new Subscription();
  private readonly leaseRanges = new Map<string, { min: string; max: string }>();
  private readonly firstSeen = new Set<string>();
  private relistTimer?: NodeJS.Timeout;
  private readonly batches$;

  constructor(
    private readonly deps: OperationPipelineDeps,
    private readonly options: OperationPipelineOptions = {},
  ) {
    const { ctx } = deps;
    this.reconciler = new OperationReconciler(ctx, deps.registry);
    this.scheduler = new KeyedScheduler<ScheduledOperation>({
      concurrency: options.concurrency ?? 32,
      maxAttempts: options.maxHandlerAttempts ?? 8,
      // A dependency down (CS, Cosmos, ARM) is waited out, never dead-lettered; the deadline ends it.
      isRetriable: (err) => isRetriable(err) || (cosmosStatus(err) !== undefined && isRetriableCosmosFailure(err)),
      order: (a, b) => a.startTime.localeCompare(b.startTime),
      handle: (_key, _id, ref, _attempt, fence) => this.reconciler.reconcile(ref, fence),
      redundant: (next, handled) =>
        next.etag !== undefined && (next.etag === handled.etag || ctx.ownWrites.isOwn({ id: next.id, _etag: next.etag })),
      onOutcome: (_key, _id, ref, outcome) => this.onOutcome(ref, outcome),
    });
    const stream = createChangeFeedStream<unknown>(
      {
        feedContainer: deps.operationsContainer,
        leaseContainer: deps.leasesContainer,
        onPoison: (doc, error, context) => this.deadLetter(doc, 'processing', error, context.leaseToken),
      },
      { ...deps.changefeed, logger: deps.changefeed.logger ?? ctx.logger },
    );
    this.processor = stream.processor;
    this.batches$ = stream.batches$;
  }

  /** Starts reading the change feed (the processor acquires leases, relists each range it gets). */
  start(): void {
    this.subscriptions.add(this.processor.events$.subscribe((e) => this.onLeaseEvent(e)));
    this.subscriptions.add(
      this.batches$
        .pipe(handleBatches((docs, context) => this.handleBatch(docs, context)))
        .subscribe({ error: (err: unknown) => this.deps.ctx.logger.error('change feed stopped', { error: (err as Error).message }) }),
    );
    const interval = this.options.relistIntervalMs ?? 300_000;
    this.relistTimer = setInterval(() => void this.relistAll('periodic'), interval);
    this.relistTimer.unref();
  }

  /**
   * Stops in the order a graceful shutdown needs: no new handling; the handlings in flight finish,
   * or after `drainMs` are abandoned (fenced, so nothing more is written for them); only then are
   * the leases released, so the next owner (which relists the range) never overlaps a handling
   * here. Batches read meanwhile are not handled: their operations are relisted by the next owner.
   */
  async stop(options: { drainMs?: number } = {}): Promise<{ abandoned: number }> {
    if (this.relistTimer) clearInterval(this.relistTimer);
    const drained = await this.scheduler.stop({ drainMs: options.drainMs, reason: new ShutdownError() });
    this.subscriptions.unsubscribe();
    await this.processor.stop();
    return drained;
  }

  /** Operations waiting, parked or in flight here (for state dumps and `/metrics`). */
  scheduled(): ReturnType<KeyedScheduler<ScheduledOperation>['snapshot']> {
    return this.scheduler.snapshot();
  }

  /** Takes in one change-feed batch; resolves once it is safe to checkpoint (see the class comment). */
  async handleBatch(docs: readonly unknown[], context: Pick<ChangeFeedContext, 'leaseToken'>): Promise<void> {
    const { ctx } = this.deps;
    const pending: Array<Promise<Outcome>> = [];
    for (const raw of docs) {
      const meta = raw as { id?: unknown; status?: unknown; partitionKey?: unknown; externalId?: unknown };
      // Unvalidated: only short strings reach the tap (a field may be anything, nested or huge).
      ctx.taps.publish('changes', {
        leaseToken: context.leaseToken,
        operationId: text(meta.id),
        subscriptionId: text(meta.partitionKey),
        resourceId: text(meta.externalId),
        status: text(meta.status),
      });
      let op: Stored<Operation>;
      try {
        op = ctx.operations.documents.parse(raw);
      } catch (err) {
        if (!isInvalidDocumentError(err)) throw err;
        await this.deadLetter(raw, 'validation', err, context.leaseToken);
        continue;
      }
      ctx.taps.publish('operations', { ...summary(op), leaseToken: context.leaseToken });
      if (ctx.ownWrites.isOwn(op)) continue; // the echo of our own write: already scheduled
      const p = this.schedule(op, context.leaseToken);
      if (p) pending.push(p);
    }
    if (this.scheduler.size > (this.options.maxScheduled ?? 10_000)) await Promise.all(pending);
  }

  /** Lists what is still active in a range and schedules it (a new owner must not wait for a change). */
  async relist(leaseToken: string, range: { min: string; max: string }, reason: string): Promise<number> {
    const { ctx } = this.deps;
    const { items, invalid } = await ctx.operations.listNonTerminal({ feedRange: range });
    const notify = await ctx.operations.documents.query(
      {
        query: 'SELECT * FROM c WHERE IS_DEFINED(c.notificationUri) AND ARRAY_CONTAINS(@terminal, c.status)',
        parameters: [{ name: '@terminal', value: ['Succeeded', 'Failed', 'Canceled'] }],
      },
      {},
    );
    const inRange = notify.items.filter((op) => rangeContains(range, effectivePartitionKey(op.partitionKey)));
    // Valid work first: a document that cannot be dead-lettered must not keep the others waiting.
    for (const op of [...items, ...inRange]) void this.schedule(op, leaseToken);
    const invalidInRange = notify.invalid.filter((err) => inRangeOf(range, err.document));
    for (const err of [...invalid, ...invalidInRange]) await this.deadLetter(err.document, 'validation', err, leaseToken);
    const n = items.length + inRange.length;
    ctx.logger.info(`relisted ${n} active operation(s)`, { leaseToken, reason });
    return n;
  }

  private schedule(op: Stored<Operation>, leaseToken: string): Promise<Outcome> | undefined {
    const { ctx } = this.deps;
    if (isTerminal(op.status) && !op.notificationUri) return undefined;
    // Reaction latency: from the frontend's write to this first sight, for operations the backend never touched.
    let reactionMs: number | undefined;
    if (op.lastTransitionTime === op.startTime && !this.firstSeen.has(op.id)) {
      this.firstSeen.add(op.id);
      if (this.firstSeen.size > 100_000) this.firstSeen.delete(this.firstSeen.values().next().value as string);
      const since = Date.parse(op.startTime);
      if (Number.isFinite(since)) {
        reactionMs = Math.max(0, ctx.clock.now() - since);
        ctx.metrics.reactionLatency.observe({ processor: op.request }, reactionMs / 1000);
      }
    }
    ctx.taps.publish('active', { ...summary(op), leaseToken, ...(reactionMs !== undefined ? { reactionMs } : {}) });
    const ref: ScheduledOperation = {
      partitionKey: op.partitionKey,
      id: op.id,
      startTime: op.startTime,
      resourceId: op.externalId,
      leaseToken,
      epk: effectivePartitionKey(op.partitionKey),
      etag: op._etag,
    };
    const promise = this.scheduler.enqueue(resourceDocumentId(op.externalId), op.id, ref);
    ctx.metrics.scheduled.set(this.scheduler.size);
    return promise;
  }

  private onOutcome(ref: ScheduledOperation, outcome: Outcome): void {
    const { ctx } = this.deps;
    ctx.metrics.scheduled.set(this.scheduler.size);
    if (outcome.kind !== 'failed') return;
    ctx.logger.error('operation kept failing; dead-lettered', {
      operationId: ref.id,
      subscriptionId: ref.partitionKey,
      resourceId: ref.resourceId,
      leaseToken: ref.leaseToken,
      error: outcome.error.message,
    });
    const fallback = { id: ref.id, partitionKey: ref.partitionKey, externalId: ref.resourceId };
    void ctx.operations.documents.read(ref.partitionKey, ref.id).then(
      (doc) => this.deadLetter(doc ?? fallback, 'processing', outcome.error, ref.leaseToken),
      (err: unknown) => this.deadLetter(fallback, 'processing', err, ref.leaseToken),
    );
  }

  private deadLetter(document: unknown, reason: DeadLetterReason, error: unknown, leaseToken?: string): Promise<void> {
    return deadLetter(this.deps.ctx, document, reason, error, leaseToken);
  }

  private onLeaseEvent(e: ChangeFeedEvent): void {
    const { ctx } = this.deps;
    if (!('leaseToken' in e) || !e.leaseToken) return;
    const token = e.leaseToken;
    if (e.type === EVENTS.leaseAcquired || e.type === EVENTS.leaseReleased || e.type === EVENTS.leaseLost || e.type === EVENTS.leaseSplit) {
      ctx.taps.publish('leases', { type: e.type, leaseToken: token, instanceName: e.instanceName });
    }
    if (e.type === EVENTS.leaseAcquired) {
      const range = rangeOfToken(token);
      this.leaseRanges.set(token, range);
      ctx.metrics.leasesOwned.set(this.processor.ownedLeaseTokens().length);
      retry(
        () => this.relist(token, range, `lease ${e.reason}`),
        () => ({ retry: this.leaseRanges.has(token) }),
        RELIST_RETRY,
        { onRetry: (err) => ctx.logger.warn('relist failed; retrying', { leaseToken: token, error: (err as Error).message }) },
      ).catch((err: unknown) =>
        ctx.logger.error('relist failed; the periodic relist will retry', { leaseToken: token, error: (err as Error).message }),
      );
    } else if (e.type === EVENTS.leaseReleased || e.type === EVENTS.leaseLost) {
      const range = this.leaseRanges.get(token);
      this.leaseRanges.delete(token);
      ctx.metrics.leasesOwned.set(this.processor.ownedLeaseTokens().length);
      ctx.metrics.leaseLag.remove({ lease: token });
      // Its new owner relists them; parked work here would only duplicate Clusters Service calls, and
      // a handling in flight is fenced: it must not act for a range another instance now owns.
      if (range) this.scheduler.remove((_k, _id, ref) => rangeContains(range, ref.epk), new LeaseMovedError(token, e.type));
    }
  }

  private async relistAll(reason: string): Promise<void> {
    for (const [token, range] of this.leaseRanges) {
      await this.relist(token, range, reason).catch((err: unknown) =>
        this.deps.ctx.logger.warn('relist failed', { leaseToken: token, error: (err as Error).message }),
      );
    }
  }
}

/** Thrown into a handling in flight whose lease this instance no longer holds. */
export class LeaseMovedError extends Error {
  constructor(
    readonly leaseToken: string,
    readonly event: string,
  ) {
    super(`lease ${leaseToken} is no longer held here (${event}): handling stopped`);
    this.name = 'LeaseMovedError';
  }
}

/** Why a handling still in flight when the shutdown drain ran out was abandoned. */
export class ShutdownError extends Error {
  constructor() {
    super('opstream is stopping: handling abandoned after the shutdown drain (shutdown.drainTimeoutMs); the next lease owner relists it');
    this.name = 'ShutdownError';
  }
}

function inRangeOf(range: { min: string; max: string }, doc: unknown): boolean {
  const pk = (doc as { partitionKey?: unknown } | null)?.partitionKey;
  return typeof pk === 'string' && rangeContains(range, effectivePartitionKey(pk));
}

/** Lease tokens are `{min}-{max}` over EPK hex strings (version 1 leases). */
export function rangeOfToken(token: string): { min: string; max: string } {
  const i = token.indexOf('-');
  if (i < 0) throw new Error(`lease token "${token}" is not a {min}-{max} range`);
  return { min: token.slice(0, i), max: token.slice(i + 1) };
}

function summary(op: Operation): Record<string, unknown> {
  return { operationId: op.id, subscriptionId: op.partitionKey, resourceId: op.externalId, request: op.request, status: op.status };
}

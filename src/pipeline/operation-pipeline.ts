import type { Container } from '@azure/cosmos';
import { Subscription } from 'rxjs';
import {
  createChangeFeedStream,
  handleBatches,
  type ChangeFeedContext,
  type ChangeFeedProcessor,
  type ChangeFeedProcessorOptions,
} from '@opstream/changefeed';
import { parseArmResourceId, resourceDocumentId } from '../domain/ids';
import { isTerminal } from '../domain/statuses';
import { activeSpanContext, ATTR, correlationOf, inSpan, ROOT_CONTEXT, SpanKind } from '../tracing';
import type { Operation, Stored } from '../domain/types';
import { effectivePartitionKey, rangeContains } from '@opstream/changefeed';
import type { PipelineServices } from './context';
import { PIPELINE_EVENTS } from './events';
import { operationState, type OperationState } from './operation-state';
import type { ClassifyFailure } from './queue/failure';
import { KeyedScheduler } from './queue/keyed-scheduler';
import type { SettlementResult } from './queue/settle';
import type { CsStateHint } from './cs-hints';
import { OperationReconciler, type OperationRef } from './reconcile/operation-reconciler';
import type { Outcome } from './queue/outcome';
import type { OperationProcessor } from './reconcile/processor';
import { OperationSource, type FeedRange } from './source/operation-source';

export interface OperationPipelineOptions {
  /** Resources handled in parallel. @defaultValue 32 */
  concurrency?: number;
  /** Safety-net relist of every owned range. @defaultValue 300_000 */
  relistIntervalMs?: number;
  /** Consecutive non-retriable handler throws before an operation is dead-lettered (a dependency down is waited out). @defaultValue 8 */
  maxHandlerAttempts?: number;
  /** Operations in memory beyond which a batch waits for its own handling, and up to which a relist fills the queue. @defaultValue 10_000 */
  maxScheduled?: number;
  /**
   * Operations already started (handled here before; Provisioning or Updating; ended with ARM still
   * to notify) are handled before new ones, which get one turn in eight while both wait: under more
   * load than the workers take, operations keep completing at capacity and new ones wait. @defaultValue true
   */
  startedFirst?: boolean;
}

/** The defaults of `OperationPipelineOptions`, written once (the configuration schema's must agree: a test checks). */
export const PIPELINE_DEFAULTS = Object.freeze({
  concurrency: 32,
  relistIntervalMs: 300_000,
  maxHandlerAttempts: 8,
  maxScheduled: 10_000,
  startedFirst: true,
});

export interface OperationPipelineDeps {
  ctx: PipelineServices;
  registry: readonly OperationProcessor[];
  /** What a handling's failure is to the queue (retried, counted or terminal). */
  classify: ClassifyFailure;
  operationsContainer: Container;
  leasesContainer: Container;
  changefeed: ChangeFeedProcessorOptions;
}

/** One non-terminal operation this instance holds (the active-operations gauge shows them). */
export interface ActiveOperation {
  operationId: string;
  resourceType: string;
  request: string;
  status: string;
  /** The operation's `startTime` in ms since the epoch. */
  startTimeMs: number;
}

interface QueuedOperation extends OperationRef {
  /** ARM resource type, or `unknown` for an id that does not parse (metrics label). */
  resourceType: string;
  epk: string;
  /** `_etag` of the version that queued it: its own write's echo needs no handling of its own. */
  etag?: string;
}

/**
 * The pipeline, wired: change feed → source (validated operations with work left; dead letters;
 * relists) → queue (one operation per resource at a time, oldest first; retries) → reconciler →
 * processors. A batch is checkpointed once every operation with work left in it was handled or
 * parked once; handling itself does not hold the feed back, and an operation with work left stays
 * non-terminal (or keeps its notificationUri) in Cosmos until done, so whoever owns its range next
 * lists it again. Past `maxScheduled` operations in memory, a batch waits for its own handling
 * and a relist waits for room before it offers the next operation.
 */
export class OperationPipeline {
  readonly processor: ChangeFeedProcessor;
  private readonly queue: KeyedScheduler<QueuedOperation>;
  private readonly reconciler: OperationReconciler;
  private readonly source: OperationSource;
  private readonly subscriptions = new Subscription();
  private readonly batches$;
  private relistTimer?: unknown;

  constructor(
    private readonly deps: OperationPipelineDeps,
    private readonly options: OperationPipelineOptions = {},
  ) {
    const { ctx } = deps;
    // A notification slot that frees wakes the operation that waited for it (see NotificationSlots).
    this.reconciler = new OperationReconciler(ctx, deps.registry, (ids) => this.queue.expedite(ids));
    this.queue = new KeyedScheduler<QueuedOperation>({
      concurrency: options.concurrency ?? PIPELINE_DEFAULTS.concurrency,
      retry: { maxAttempts: options.maxHandlerAttempts ?? PIPELINE_DEFAULTS.maxHandlerAttempts },
      clock: ctx.clock,
      classify: deps.classify,
      order: (a, b) => a.startTime.localeCompare(b.startTime),
      startedFirst: options.startedFirst ?? PIPELINE_DEFAULTS.startedFirst,
      started: (ref) => startedElsewhere(ref.status),
      handle: (_key, _id, ref, _attempt, fence) => this.reconciler.reconcile(ref, fence),
      redundant: (next, handled) =>
        next.etag !== undefined && (next.etag === handled.etag || ctx.ownWrites.isOwn({ id: next.id, _etag: next.etag })),
      onOutcome: (_key, _id, ref, outcome, durationMs, result) => this.settled(ref, outcome, durationMs, result),
    });
    this.source = new OperationSource({
      ctx,
      accept: (op, leaseToken) => this.enqueue(op, leaseToken),
      drop: (range, leaseToken, event) => this.drop(range, new LeaseMovedError(leaseToken, event)),
      ownedLeases: () => this.processor.ownedLeaseTokens().length,
      hasRoom: (op) => this.hasRoom(op),
      waitForRoom: (signal) => this.queue.whenFewerThan(this.maxScheduled, signal),
    });
    const stream = createChangeFeedStream<unknown>(
      {
        feedContainer: deps.operationsContainer,
        leaseContainer: deps.leasesContainer,
        onPoison: (doc, error, c) => this.source.deadLetter(doc, 'processing', error, c.leaseToken),
      },
      { ...deps.changefeed, logger: deps.changefeed.logger ?? ctx.logger },
    );
    this.processor = stream.processor;
    this.batches$ = stream.batches$;
  }

  /** Starts reading the change feed (the processor acquires leases, the source relists each range it gets). */
  start(): void {
    this.subscriptions.add(this.processor.events$.subscribe((e) => this.source.onLeaseEvent(e)));
    this.subscriptions.add(
      this.batches$
        .pipe(handleBatches((docs, context) => this.handleBatch(docs, context)))
        .subscribe({ error: (err: unknown) => this.source.feedStopped(err) }),
    );
    const every = this.options.relistIntervalMs ?? PIPELINE_DEFAULTS.relistIntervalMs;
    const relistLater = (): void => {
      this.relistTimer = this.deps.ctx.clock.setTimeout(() => {
        void this.source.relistAll('periodic');
        relistLater();
      }, every);
    };
    relistLater();
  }

  /**
   * Stops in the order a graceful shutdown needs: no new handling; the handlings in flight finish,
   * or after `drainMs` are abandoned (fenced, so nothing more is written for them); only then are
   * the leases released, so the next owner (which relists the range) never overlaps a handling
   * here. Batches read meanwhile are not handled: their operations are relisted by the next owner.
   */
  async stop(options: { drainMs?: number } = {}): Promise<{ abandoned: number }> {
    if (this.relistTimer !== undefined) this.deps.ctx.clock.clearTimeout(this.relistTimer);
    this.relistTimer = undefined;
    this.source.stopRelists();
    const drained = await this.queue.stop({ drainMs: options.drainMs, reason: new ShutdownError() });
    this.subscriptions.unsubscribe();
    await this.processor.stop();
    return drained;
  }

  /**
   * A Clusters Service event: the operations whose status follow watches that object, and for which
   * the reported state may end them, are checked now (their status read stays the truth, so a wrong,
   * late or repeated hint costs one read at most). Returns how many operations it woke.
   */
  checkNow(hint: CsStateHint): number {
    const ids = this.reconciler.wake(hint);
    return ids.size === 0 ? 0 : this.queue.expedite(ids);
  }

  /**
   * An operator's nudge (`opstream operations nudge`): the operation's next look, parked here, is
   * brought forward to now. False when it is not parked nor handled here (another instance owns its
   * range, or it is terminal); a backoff after a failure is not shortened.
   */
  nudge(operationId: string): boolean {
    return this.queue.expedite(new Set([operationId])) > 0;
  }

  /** What this instance is doing with one operation (`/api/operations/<id>`, `opstream explain`). */
  describe(operationId: string): OperationState {
    const item = this.queue.describe(operationId);
    const { follow, lockWaitSince } = this.reconciler.describe(operationId);
    return operationState({
      instance: this.processor.instanceName,
      operationId,
      now: this.deps.ctx.clock.now(),
      item,
      follow,
      lockWaitSince,
    });
  }

  /** Operations waiting, parked or in flight here (for state dumps and `/metrics`). */
  scheduled(): ReturnType<KeyedScheduler<QueuedOperation>['snapshot']> {
    return this.queue.snapshot();
  }

  /**
   * Takes in one change-feed batch; resolves once it is safe to checkpoint (see the class comment).
   * The batch is a trace of its own; the first handling of each operation it brings joins it.
   */
  handleBatch(docs: readonly unknown[], context: Pick<ChangeFeedContext, 'leaseToken'>): Promise<void> {
    const attributes = { [ATTR.leaseToken]: context.leaseToken, [ATTR.documents]: docs.length };
    return inSpan('change-feed batch', { kind: SpanKind.CONSUMER, parent: ROOT_CONTEXT, attributes }, async () => {
      const pending = await this.source.takeBatch(docs, context.leaseToken);
      if (this.queue.size > this.maxScheduled) await Promise.all(pending);
    });
  }

  /** The non-terminal operations this instance holds (waiting, parked or in flight), for `/metrics`. */
  activeOperations(): ActiveOperation[] {
    const out: ActiveOperation[] = [];
    for (const { item } of this.queue.snapshot()) {
      if (isTerminal(item.status)) continue; // only its ARM notification is left
      out.push({
        operationId: item.id,
        resourceType: item.resourceType,
        request: item.request,
        status: item.status,
        startTimeMs: Date.parse(item.startTime),
      });
    }
    return out;
  }

  /** Lists what is still active in a range and queues it (what a new lease owner does first). */
  relist(leaseToken: string, range: FeedRange, reason: string): Promise<number> {
    return this.source.relist(leaseToken, range, reason);
  }

  private get maxScheduled(): number {
    return this.options.maxScheduled ?? PIPELINE_DEFAULTS.maxScheduled;
  }

  /** Whether the queue may take `op` within `maxScheduled` (always when it holds `op`: offering it again replaces it). */
  private hasRoom(op: Stored<Operation>): boolean {
    return this.queue.size < this.maxScheduled || this.queue.has(resourceDocumentId(op.externalId), op.id);
  }

  private enqueue(op: Stored<Operation>, leaseToken: string): Promise<Outcome> {
    const ref: QueuedOperation = {
      partitionKey: op.partitionKey,
      id: op.id,
      startTime: op.startTime,
      resourceId: op.externalId,
      resourceType: resourceTypeOf(op.externalId),
      leaseToken,
      request: op.request,
      status: op.status,
      ...correlationOf(op),
      cause: activeSpanContext(),
      epk: effectivePartitionKey(op.partitionKey),
      etag: op._etag,
    };
    const key = resourceDocumentId(op.externalId);
    const earlier = this.queue.has(key, op.id) ? [] : this.queue.idsUnder(key);
    const settled = this.queue.enqueue(key, op.id, ref);
    // A new operation on a resource supersedes those before it (the frontend made it the Resource's
    // active one): their next handling, brought forward, finds that and ends them Canceled now
    // rather than at their next look. The Delete's own end still cancels whatever is left.
    if (earlier.length > 0) this.queue.expedite(new Set(earlier));
    this.deps.ctx.events.emit({ type: PIPELINE_EVENTS.queueSize, size: this.queue.size, waiting: this.queue.waiting });
    return settled;
  }

  /** Drops what is queued for a range no longer held here, and the memory kept for it. */
  private drop(range: FeedRange, reason: LeaseMovedError): void {
    this.queue.remove((_k, id, ref) => {
      const inRange = rangeContains(range, ref.epk);
      if (inRange) this.reconciler.forget(id, ref.resourceId);
      return inRange;
    }, reason);
    this.deps.ctx.events.emit({ type: PIPELINE_EVENTS.queueSize, size: this.queue.size, waiting: this.queue.waiting });
  }

  private settled(ref: QueuedOperation, outcome: Outcome, durationMs: number, result: SettlementResult): void {
    const { ctx } = this.deps;
    ctx.events.emit({ type: PIPELINE_EVENTS.queueSettled, result, durationMs, size: this.queue.size, waiting: this.queue.waiting });
    if (outcome.kind !== 'failed') return;
    this.reconciler.forget(ref.id);
    const ids = { operationId: ref.id, subscriptionId: ref.partitionKey, resourceId: ref.resourceId, ...correlationOf(ref) };
    ctx.events.emit({ type: PIPELINE_EVENTS.operationGaveUp, ids, leaseToken: ref.leaseToken, error: outcome.error.message });
    const fallback = { id: ref.id, partitionKey: ref.partitionKey, externalId: ref.resourceId };
    void ctx.operations.documents.read(ref.partitionKey, ref.id).then(
      (doc) => this.source.deadLetter(doc ?? fallback, 'processing', outcome.error, ref.leaseToken),
      (err: unknown) => this.source.deadLetter(fallback, 'processing', err, ref.leaseToken),
    );
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
class ShutdownError extends Error {
  constructor() {
    super('opstream is stopping: handling abandoned after the shutdown drain (shutdown.drainTimeoutMs); the next lease owner relists it');
    this.name = 'ShutdownError';
  }
}

/**
 * Whether an operation's status says its work began before this instance saw it: Provisioning and
 * Updating are written once Clusters Service took the request, a terminal status leaves only ARM's
 * notification. Accepted has not begun; Deleting is written by the frontend, so it says nothing.
 */
function startedElsewhere(status: Operation['status']): boolean {
  return status === 'Provisioning' || status === 'Updating' || isTerminal(status);
}

function resourceTypeOf(armId: string): string {
  try {
    return parseArmResourceId(armId).resourceType;
  } catch {
    return 'unknown';
  }
}

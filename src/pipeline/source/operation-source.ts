import { EVENTS, type ChangeFeedEvent } from '@opstream/changefeed';
import { isInvalidDocumentError } from '../../cosmos/errors';
import { isTerminal } from '../../domain/statuses';
import type { Operation, Stored } from '../../domain/types';
import { retry, type BackoffPolicy } from '../../util/backoff';
import type { PipelineServices } from '../context';
import { PIPELINE_EVENTS } from '../events';
import { summary } from '../operation-summary';
import { ATTR, correlationOf, inSpan, ROOT_CONTEXT } from '../../tracing';
import { deadLetter, text, type DeadLetterReason } from '../dead-letter';

export interface OperationSourceDeps {
  ctx: PipelineServices;
  /** Takes an operation with work left; resolves once it was handled (or parked) once. */
  accept(op: Stored<Operation>, leaseToken: string): Promise<unknown>;
  /** Drops what is queued for a range this instance no longer owns (aborting handlings in flight). */
  drop(range: FeedRange, leaseToken: string, event: string): void;
  /** Leases this instance owns now. */
  ownedLeases(): number;
  /** Whether the queue may take `op` within its bound now (always when it holds `op` already). */
  hasRoom(op: Stored<Operation>): boolean;
  /** Resolves when the queue may have room again; rejects with the signal's reason when `signal` aborts first. */
  waitForRoom(signal: AbortSignal): Promise<void>;
}

export interface FeedRange {
  readonly min: string;
  readonly max: string;
}

const RELIST_RETRY: BackoffPolicy = { retries: 8, initialDelayMs: 250, maxDelayMs: 10_000, multiplier: 2, jitter: 0.2 };
const FIRST_SEEN_CAPACITY = 100_000;

/** Why a relist stopped before the end of its range. */
class RelistStoppedError extends Error {
  constructor(leaseToken: string, why: string) {
    super(`relist of lease ${leaseToken} stopped: ${why}`);
    this.name = 'RelistStoppedError';
  }
}

/**
 * The source of the pipeline: change-feed batches → validated operations (invalid ones
 * dead-lettered) → those with work left (non-terminal, or a pending ARM notification), handed to
 * `accept`. A new lease owner relists what is active in the range the change feed reports for the
 * lease (the feed alone misses what is already in progress), and every owned range is relisted
 * periodically as a safety net.
 *
 * A relist reads its range only (queries scoped to the feed range), one page at a time, and offers
 * an operation only when the queue has room for it (`hasRoom`): past the queue's bound it waits where
 * it stopped, holding one page, and goes on as operations end. One relist per lease at a time (a
 * periodic one joins the one running); losing the lease stops it.
 */
export class OperationSource {
  private readonly ranges = new Map<string, FeedRange>();
  /** The relist running for each lease, and what stops it. */
  private readonly relists = new Map<string, { done: Promise<number>; stop: AbortController }>();
  /** Operations this instance measured the reaction to (once each). */
  private readonly firstSeen = new Set<string>();

  constructor(private readonly deps: OperationSourceDeps) {}

  /** Takes in one change-feed batch; returns what to wait for before the batch may be checkpointed. */
  async takeBatch(docs: readonly unknown[], leaseToken: string): Promise<Array<Promise<unknown>>> {
    const { ctx } = this.deps;
    const pending: Array<Promise<unknown>> = [];
    for (const raw of docs) {
      const meta = (raw !== null && typeof raw === 'object' ? raw : {}) as {
        id?: unknown;
        status?: unknown;
        partitionKey?: unknown;
        externalId?: unknown;
        correlationRequestId?: unknown;
        clientRequestId?: unknown;
      };
      // Unvalidated: only short strings reach the event (a field may be anything, nested or huge).
      ctx.events.emit({
        type: PIPELINE_EVENTS.changeSeen,
        leaseToken,
        ids: {
          operationId: text(meta.id),
          subscriptionId: text(meta.partitionKey),
          resourceId: text(meta.externalId),
          ...correlationOf(meta),
        },
        status: text(meta.status),
      });
      let op: Stored<Operation>;
      try {
        op = ctx.operations.documents.parse(raw);
      } catch (err) {
        if (!isInvalidDocumentError(err)) throw err;
        await this.deadLetter(raw, 'validation', err, leaseToken);
        continue;
      }
      ctx.events.emit({ type: PIPELINE_EVENTS.operationRead, leaseToken, operation: summary(op) });
      if (ctx.ownWrites.isOwn(op)) continue; // the echo of our own write: already scheduled
      const p = this.offer(op, leaseToken);
      if (p) pending.push(p);
    }
    return pending;
  }

  /**
   * Lists what is still active in a range and offers it (a new owner must not wait for a change);
   * resolves with how many operations it offered. Joins the relist of the lease already running.
   */
  relist(leaseToken: string, range: FeedRange, reason: string): Promise<number> {
    const running = this.relists.get(leaseToken);
    if (running) return running.done;
    const stop = new AbortController();
    const done = this.relistRange(leaseToken, range, reason, stop.signal).finally(() => {
      if (this.relists.get(leaseToken)?.stop === stop) this.relists.delete(leaseToken);
    });
    this.relists.set(leaseToken, { done, stop });
    return done;
  }

  /** Relists every owned range (the periodic safety net), side by side: a relist waiting for room holds up no other. */
  async relistAll(reason: string): Promise<void> {
    await Promise.all(
      [...this.ranges].map(([token, range]) =>
        this.relist(token, range, reason).catch((err: unknown) =>
          this.deps.ctx.logger.warn('relist failed', { leaseToken: token, error: (err as Error).message }),
        ),
      ),
    );
  }

  /** Stops every relist (at shutdown): nothing more is read or offered. */
  stopRelists(): void {
    for (const [token, { stop }] of this.relists) stop.abort(new RelistStoppedError(token, 'opstream is stopping'));
  }

  private relistRange(leaseToken: string, range: FeedRange, reason: string, signal: AbortSignal): Promise<number> {
    // A trace of its own, like a batch: the first handling of each operation it finds joins it.
    return inSpan(
      'relist',
      { parent: ROOT_CONTEXT, attributes: { [ATTR.leaseToken]: leaseToken, [ATTR.reason]: reason } },
      async (span) => {
        const { ctx } = this.deps;
        let offered = 0;
        try {
          for await (const page of ctx.operations.pagesNeedingWork(range, { signal })) {
            // Valid work first: a document that cannot be dead-lettered must not keep the others waiting.
            for (const op of page.items) {
              // Checked again after each wake-up, and offered in the same step: every waiting relist wakes, the first takes the room.
              while (!this.deps.hasRoom(op)) await this.deps.waitForRoom(signal);
              if (this.offer(op, leaseToken)) offered++;
            }
            for (const err of page.invalid) await this.deadLetter(err.document, 'validation', err, leaseToken);
          }
        } catch (err) {
          if (!signal.aborted) throw err;
          ctx.logger.info(`relist stopped after ${offered} operation(s)`, {
            leaseToken,
            reason,
            why: (signal.reason as Error | undefined)?.message,
          });
          return offered;
        } finally {
          span.setAttribute(ATTR.documents, offered);
        }
        ctx.logger.info(`relisted ${offered} active operation(s)`, { leaseToken, reason });
        return offered;
      },
    );
  }

  /** Follows the change feed's lease events: relist what a lease brings, drop what a lost one held. */
  onLeaseEvent(e: ChangeFeedEvent): void {
    const { ctx } = this.deps;
    if (e.type === EVENTS.leaseAcquired) {
      const token = e.leaseToken;
      this.ranges.set(token, e.feedRange);
      this.leaseChanged(token, 'acquired', e.instanceName);
      retry(
        () => this.relist(token, e.feedRange, `lease ${e.reason}`),
        () => ({ retry: this.ranges.has(token) }),
        RELIST_RETRY,
        { onRetry: (err) => ctx.logger.warn('relist failed; retrying', { leaseToken: token, error: (err as Error).message }) },
      ).catch((err: unknown) =>
        ctx.logger.error('relist failed; the periodic relist will retry', { leaseToken: token, error: (err as Error).message }),
      );
    } else if (e.type === EVENTS.leaseReleased || e.type === EVENTS.leaseLost) {
      const range = this.ranges.get(e.leaseToken);
      this.ranges.delete(e.leaseToken);
      this.relists.get(e.leaseToken)?.stop.abort(new RelistStoppedError(e.leaseToken, `the lease is no longer held here (${e.type})`));
      this.leaseChanged(e.leaseToken, e.type === EVENTS.leaseLost ? 'lost' : 'released', e.instanceName);
      // Its new owner relists them; parked work here would only duplicate Clusters Service calls, and
      // a handling in flight is fenced: it must not act for a range another instance now owns.
      if (range) this.deps.drop(range, e.leaseToken, e.type);
    } else if (e.type === EVENTS.leaseSplit) {
      this.leaseChanged(e.leaseToken, 'split', e.instanceName);
    }
  }

  /** Reports failures of the change feed as a whole (the stream ended). */
  feedStopped(err: unknown): void {
    this.deps.ctx.logger.error('change feed stopped', { error: (err as Error).message });
  }

  deadLetter(document: unknown, reason: DeadLetterReason, error: unknown, leaseToken?: string): Promise<void> {
    return deadLetter(this.deps.ctx, document, reason, error, leaseToken);
  }

  private leaseChanged(leaseToken: string, change: 'acquired' | 'released' | 'lost' | 'split', instanceName: string): void {
    this.deps.ctx.events.emit({ type: PIPELINE_EVENTS.leaseChanged, leaseToken, change, instanceName, owned: this.deps.ownedLeases() });
  }

  /** Hands `op` to the queue when it has work left; the promise settles once it was handled once. */
  private offer(op: Stored<Operation>, leaseToken: string): Promise<unknown> | undefined {
    const { ctx } = this.deps;
    if (isTerminal(op.status) && !op.notificationUri) {
      ctx.known.forget(op.id);
      return undefined;
    }
    ctx.known.brought(op, ctx.ownWrites.wrote(op.id));
    ctx.events.emit({ type: PIPELINE_EVENTS.operationActive, leaseToken, operation: summary(op), reactionMs: this.reactionMs(op) });
    return this.deps.accept(op, leaseToken);
  }

  /** From the frontend's write to this first sight, for operations the backend never touched. */
  private reactionMs(op: Operation): number | undefined {
    if (op.lastTransitionTime !== op.startTime || this.firstSeen.has(op.id)) return undefined;
    this.firstSeen.add(op.id);
    if (this.firstSeen.size > FIRST_SEEN_CAPACITY) this.firstSeen.delete(this.firstSeen.values().next().value as string);
    const since = Date.parse(op.startTime);
    return Number.isFinite(since) ? Math.max(0, this.deps.ctx.clock.now() - since) : undefined;
  }
}

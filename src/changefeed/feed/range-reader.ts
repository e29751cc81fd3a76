import type { ChangeFeedIteratorResponse, ChangeFeedPullModelIterator, Container } from '@azure/cosmos';
import { ChangeFeedStartFrom, StatusCodes } from '@azure/cosmos';
import { nextDelayMs, sleep } from '../util/backoff';
import { HandlerError, PoisonHookError, ReadTimeoutError, engineError, isTransient, retryAfterMsOf } from '../errors';
import type { Emit } from '../events';
import type { ChangeFeedContext, ChangeFeedHandler, PoisonHandler } from '../handler';
import { raceAbort, settle, withTimeout } from '../handler';
import { rangeOf } from '../lease/lease-document';
import type { OwnedLease } from '../lease/owned-lease';
import type { ResolvedOptions } from '../options';
import type { RangeContinuation } from './continuation';
import { parseSdkContinuation, toSdkContinuation } from './continuation';
import { deliverWithIsolation } from './poison-isolation';
import { PollDelay } from './poll-delay';
import { recoverRoutingMap } from './routing-map';
import { WakeablePause } from './wake';

export interface RangeReaderDeps<T> {
  feedContainer: Container;
  /** `_rid` of the monitored container (the SDK checks it against continuation tokens). */
  containerRid: string;
  owned: OwnedLease;
  options: ResolvedOptions;
  handler: ChangeFeedHandler<T>;
  onPoison: PoisonHandler<T>;
  emit: Emit;
  signal: AbortSignal;
  /** Called whenever a read or a handler attempt completes (the stall watchdog's heartbeat). */
  progress: () => void;
  /** Called before an idle pause of `ms`, and with 0 when it ended: a pause is not a stall, however long the poll ceiling. */
  resting?: (ms: number) => void;
}

/** The lease's range split: one entry per child range, each with the position to start it from. */
export interface SplitDetected {
  children: RangeContinuation[];
}

/**
 * Reads one lease's range until aborted or split. Per page: hand the documents to the handler
 * (with retries and poison isolation), then checkpoint the page's etag; never the other way round,
 * so delivery is at-least-once. Transient read failures and read timeouts back off and keep the
 * lease (the iterator is rebuilt from the last known position). The SDK follows a split by itself
 * (its continuation then names several child ranges): the reader delivers the page it got and
 * returns the children's positions for the lease to be replaced.
 */
export class RangeReader<T> {
  private position: RangeContinuation;
  private readonly poll: PollDelay;
  private readonly pause = new WakeablePause();

  constructor(private readonly deps: RangeReaderDeps<T>) {
    const range = rangeOf(deps.owned.lease);
    this.position = { ...range, etag: deps.owned.lease.ContinuationToken };
    this.poll = new PollDelay(deps.options);
  }

  async run(): Promise<SplitDetected> {
    const { options, signal } = this.deps;
    let iterator: ChangeFeedPullModelIterator<T & { _lsn?: number }> | undefined;
    let failures = 0;
    for (;;) {
      signal.throwIfAborted();
      iterator ??= this.createIterator();
      let response: ChangeFeedIteratorResponse<Array<T & { _lsn?: number }>>;
      try {
        const read = withTimeout(
          iterator.readNext(),
          options.readTimeoutMs,
          () => new ReadTimeoutError(options.readTimeoutMs, this.context()),
        );
        response = await raceAbort(read, signal);
        failures = 0;
      } catch (err) {
        signal.throwIfAborted();
        this.deps.progress();
        iterator = undefined;
        // A failed partition key range lookup stays cached in the client and fails every later
        // read of the container; evict it, and classify by its own error (see routing-map.ts).
        const recovered = await recoverRoutingMap(this.deps.feedContainer, err);
        const what = recovered.routingMap ? 'change feed read (partition key range lookup)' : 'change feed read';
        const error = engineError(what, recovered.error, { leaseToken: this.deps.owned.leaseToken, instanceName: options.instanceName });
        this.deps.emit({ type: 'changefeed.error', leaseToken: this.deps.owned.leaseToken, error });
        if (!isTransient(recovered.error)) throw error;
        await sleep(nextDelayMs(options.engineRetry, failures++, retryAfterMsOf(recovered.error), options.random), signal);
        continue;
      }
      this.deps.progress();

      const documents = response.statusCode === StatusCodes.Ok ? (response.result ?? []) : [];
      if (documents.length > 0) await this.deliver(documents);

      const ranges = parseSdkContinuation(response.continuationToken).ranges;
      if (ranges.length > 1) return { children: ranges };
      const etag = ranges[0]?.etag ?? this.position.etag;
      if (documents.length > 0) {
        this.position = { ...this.position, etag };
        this.deps.owned.hold(etag);
      }
      await this.checkpointIfDue();
      const delay = this.poll.afterRead(documents.length, this.deps.options.maxItemCount);
      if (delay > 0) this.deps.resting?.(delay);
      await this.pause.wait(delay, signal);
      if (delay > 0) this.deps.resting?.(0);
    }
  }

  /** Reads again now: ends the idle pause, or skips the next one if a read is in flight. */
  wake(): void {
    this.pause.wake();
  }

  /** Writes a checkpoint that `checkpointIntervalMs` held back (on release). Lease loss is the caller's to handle. */
  async flush(): Promise<void> {
    const held = this.deps.owned.held;
    if (held === undefined) return;
    await this.deps.owned.checkpoint(held);
    this.deps.emit({ type: 'changefeed.checkpoint', leaseToken: this.deps.owned.leaseToken, continuation: held });
  }

  /**
   * Due once the lease document went `checkpointIntervalMs` without any write: counted from the last
   * write of any kind, so a renewal that carried nothing (the range was idle) is not followed by a
   * checkpoint within the same interval; the held progress rides on the next renewal instead. The
   * first checkpoint of a lease taken here is written at once.
   */
  private async checkpointIfDue(): Promise<void> {
    const { owned, options } = this.deps;
    if (owned.held === undefined) return;
    const interval = options.checkpointIntervalMs;
    if (interval > 0 && owned.lastCheckpointAt !== undefined && options.clock.now() - owned.lastWriteAt < interval) return;
    await this.flush();
  }

  private createIterator(): ChangeFeedPullModelIterator<T & { _lsn?: number }> {
    return this.deps.feedContainer.items.getChangeFeedIterator<T & { _lsn?: number }>({
      maxItemCount: this.deps.options.maxItemCount,
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(toSdkContinuation(this.deps.containerRid, [this.position])),
    });
  }

  private context(attempt = 0, isolated = false): ChangeFeedContext {
    const { options, owned, signal } = this.deps;
    return {
      leaseToken: owned.leaseToken,
      feedRange: { min: this.position.min, max: this.position.max },
      instanceName: options.instanceName,
      processorName: options.processorName,
      continuation: this.position.etag,
      attempt,
      isolated,
      signal,
    };
  }

  private async deliver(documents: ReadonlyArray<T>): Promise<void> {
    const { options, signal, emit, handler, onPoison, owned } = this.deps;
    const started = Date.now();
    await deliverWithIsolation<T>(documents, {
      attempt: async (docs, info) => {
        try {
          await raceAbort((async () => settle(handler(docs, this.context(info.attempt, info.isolated))))(), signal);
        } finally {
          this.deps.progress();
        }
      },
      onPoison: async (doc, error, info) => {
        const context = this.context(info.attempt, true);
        try {
          await raceAbort((async () => settle(onPoison(doc, error, context)))(), signal);
        } catch (hookError) {
          signal.throwIfAborted();
          throw new PoisonHookError(hookError, { leaseToken: owned.leaseToken, instanceName: options.instanceName });
        }
        emit({ type: 'changefeed.poison', leaseToken: owned.leaseToken, document: doc, error });
      },
      onAttemptFailed: (error, docs, info) => {
        const wrapped = new HandlerError(error, {
          leaseToken: owned.leaseToken,
          instanceName: options.instanceName,
          documentCount: docs.length,
        });
        emit({
          type: 'changefeed.handler.failed',
          leaseToken: owned.leaseToken,
          error: wrapped,
          documents: docs.length,
          attempt: info.attempt,
          isolated: info.isolated,
        });
      },
      handlerRetry: options.handlerRetry,
      poisonAttempts: options.poisonAttempts,
      signal,
      random: options.random,
    });
    emit({ type: 'changefeed.batch', leaseToken: owned.leaseToken, documents: documents.length, durationMs: Date.now() - started });
  }
}

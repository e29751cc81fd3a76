import { systemClock, type TimerClock } from '../../util/clock';
import type { Outcome } from './outcome';
import { KeyWakeups } from './delay';
import { classified, type ClassifyFailure } from './failure';
import { KeyedQueue, type LastHandling, type QueueEntry, type QueueWaiting } from './keyed-queue';
import { DEFAULT_RETRY_POLICY, type FailureCount, type RetryPolicy } from './retry-policy';
import { settle, type Handled, type SettlementResult } from './settle';

export interface KeyedSchedulerOptions<I> {
  /** Keys handled in parallel (the pipeline's `pipeline.concurrency`). */
  concurrency: number;
  /** Order of the due items of one key. @defaultValue insertion order */
  order?: (a: I, b: I) => number;
  /**
   * Keys with work already started (an item handled before, or one `started` says began elsewhere)
   * are handled before keys with new items only, which still get a turn in eight (see `KeyedQueue`).
   * @defaultValue false: first come, first served
   */
  startedFirst?: boolean;
  started?: (item: I) => boolean;
  /**
   * Handles one item; re-read current state rather than trusting `item` blindly. `signal` aborts
   * when the item is removed while being handled (its lease moved): stop before the next side effect.
   */
  handle: (key: string, id: string, item: I, attempt: number, signal: AbortSignal) => Promise<Outcome>;
  /**
   * What a throw means (see `failure.ts`): `retriable` (a dependency down or throttling) is retried
   * with backoff without counting towards `maxAttempts`, so an outage fails nothing; `terminal` fails
   * the item at once; `counted` is retried until `maxAttempts` in a row.
   * @defaultValue every throw is `counted`
   */
  classify?: ClassifyFailure;
  /** @defaultValue DEFAULT_RETRY_POLICY */
  retry?: Partial<RetryPolicy>;
  /**
   * Asked when an item was enqueued again while being handled, once the handling is over: true =
   * the new copy adds nothing to what was handled (the same version seen twice, or the echo of a
   * write the handler itself made, which can arrive before the handler recorded it as its own), so
   * the handling's outcome stands.
   */
  redundant?: (next: I, handled: I) => boolean;
  /** Called after every handling that was not abandoned at stop (metrics, taps, dead letters). */
  onOutcome?: (key: string, id: string, item: I, outcome: Outcome, durationMs: number, result: SettlementResult) => void;
  clock?: TimerClock;
}

/** One item as `describe` reports it. */
export interface ItemState<I> {
  key: string;
  item: I;
  /** When it is (or was) due (ms); in the future = parked. */
  dueAt: number;
  /** Set while it is being handled: when that began (ms). */
  handlingSince?: number;
  /** Its key is taken by a worker (this item or another of the same resource runs). */
  keyBusy: boolean;
  failures: FailureCount;
  last?: LastHandling;
}

/** After abandoning handlings at stop, how long they may take to notice their fence. */
const ABANDON_WAIT_MS = 2000;

/**
 * A keyed work scheduler in the spirit of client-go's workqueue, for reconcilers: the workers over
 * a `KeyedQueue` (bookkeeping), `KeyWakeups` (delays), a `RetryPolicy` and `settle` (the one
 * switch from a handling's ending to the queue's action).
 *
 * Guarantees:
 * - the items of one key are never handled concurrently, and are handled in `order` (per resource,
 *   one operation at a time, oldest first);
 * - different keys run in parallel, at most `concurrency` at once;
 * - repeats collapse: enqueuing an item that is already waiting replaces it (latest state wins) and
 *   makes it due now; enqueuing one that is being handled makes it due again right after, unless
 *   `redundant` says, once the handling is over, that the new copy adds nothing;
 * - `again` parks an item until its delay passes; a throw is retried per the retry policy, and an
 *   item that keeps failing fails (the caller dead-letters it);
 * - `expedite` makes a parked item due now (a hint that its wait is over), or, while it is being
 *   handled, due right after when that handling parks it; it never shortens a backoff after a throw.
 *
 * `enqueue` returns a promise settled with the outcome of the item's next handling, so a change-feed
 * batch can be checkpointed once each of its documents was handled (or parked) once.
 */
export class KeyedScheduler<I> {
  private readonly queue: KeyedQueue<I>;
  private readonly wakeups: KeyWakeups;
  private readonly clock: TimerClock;
  private readonly concurrency: number;
  private readonly retry: RetryPolicy;
  private running = 0;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];
  /** Callers waiting for the number of items to fall below their limit (`whenFewerThan`). */
  private roomWaiters: Array<{ limit: number; resolve: () => void }> = [];

  constructor(private readonly options: KeyedSchedulerOptions<I>) {
    this.clock = options.clock ?? systemClock;
    this.concurrency = options.concurrency;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    if (!(this.concurrency >= 1)) throw new RangeError(`concurrency must be at least 1, got ${this.concurrency}`);
    this.queue = new KeyedQueue<I>({ order: options.order, startedFirst: options.startedFirst, started: options.started });
    this.wakeups = new KeyWakeups(this.clock, (key) => this.ready(key));
  }

  /** Schedules `item` under `key` now; resolves with the outcome of its next handling. */
  enqueue(key: string, id: string, item: I): Promise<Outcome> {
    if (this.stopped) return Promise.resolve({ kind: 'failed', error: new Error('scheduler stopped') });
    const settled = this.queue.add(key, id, item, this.clock.now());
    // Deferred so a synchronous burst (one change-feed batch) is ordered as a whole before handling.
    queueMicrotask(() => this.pump());
    return settled;
  }

  /**
   * Drops waiting and parked items that match (e.g. those of a lease this instance lost), and
   * aborts the handling of matching items in flight with `reason`.
   */
  remove(predicate: (key: string, id: string, item: I) => boolean, reason?: unknown): number {
    const removed = this.queue.remove(predicate);
    for (const { id, entry } of removed) {
      entry.handling?.abort(reason ?? new Error(`${id} removed from the scheduler`));
      entry.waiters.splice(0).forEach((w) => w({ kind: 'done', note: 'removed' }));
    }
    for (const key of new Set(removed.map((r) => r.key))) this.arrange(key, this.queue.nextDue(key));
    this.roomMade();
    return removed.length;
  }

  /** The ids of the items known under `key` (waiting, parked or running). */
  idsUnder(key: string): string[] {
    return this.queue.idsUnder(key);
  }

  /** Whether an item is known under `key`/`id` (waiting, parked or running). */
  has(key: string, id: string): boolean {
    return this.queue.has(key, id);
  }

  /**
   * Resolves once fewer than `limit` items are known (at once when that is so now); rejects with
   * the signal's reason when `signal` aborts first, and once the scheduler stopped (nothing more is
   * taken). What a producer that must respect a bound waits on: room is made when an item is done,
   * fails for good or is removed.
   */
  whenFewerThan(limit: number, signal?: AbortSignal): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('scheduler stopped'));
    if (this.queue.size < limit) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        limit,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          if (this.stopped) reject(new Error('scheduler stopped'));
          else resolve();
        },
      };
      const onAbort = (): void => {
        this.roomWaiters = this.roomWaiters.filter((w) => w !== waiter);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.roomWaiters.push(waiter);
    });
  }

  /** Wakes the `whenFewerThan` callers whose limit the queue is now below. */
  private roomMade(): void {
    if (this.roomWaiters.length === 0) return;
    const size = this.queue.size;
    const ready = this.roomWaiters.filter((w) => this.stopped || size < w.limit);
    if (ready.length === 0) return;
    this.roomWaiters = this.roomWaiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }

  /** Makes the items with these ids due now (see `KeyedQueue.expedite`); returns how many were found. */
  expedite(ids: ReadonlySet<string>): number {
    if (this.stopped || ids.size === 0) return 0;
    const { found, woken } = this.queue.expedite(ids, this.clock.now());
    for (const key of woken) this.arrange(key, this.queue.nextDue(key));
    return found;
  }

  /** Keys in line for a worker: with work already started, and with new work only. */
  get waiting(): QueueWaiting {
    return this.queue.waiting;
  }

  /** Number of items known (waiting, parked or running). */
  get size(): number {
    return this.queue.size;
  }

  /** Items per key, for state dumps and metrics. */
  snapshot(): Array<{ key: string; id: string; item: I; dueInMs: number; attempts: number; running: boolean }> {
    const now = this.clock.now();
    return [...this.queue.entries()].map(({ key, id, entry, taken }) => ({
      key,
      id,
      item: entry.item,
      dueInMs: Math.max(0, entry.dueAt - now),
      attempts: entry.failures.attempts,
      running: taken,
    }));
  }

  /**
   * What the scheduler knows of the item with this id, under whichever key: due when, handled now
   * (since when), failures in a row, how its last handling ended. For `opstream explain`.
   */
  describe(id: string): ItemState<I> | undefined {
    for (const { key, id: itemId, entry, taken } of this.queue.entries()) {
      if (itemId !== id) continue;
      return {
        key,
        item: entry.item,
        dueAt: entry.dueAt,
        handlingSince: entry.handling ? entry.handlingSince : undefined,
        keyBusy: taken,
        failures: entry.failures,
        last: entry.last,
      };
    }
    return undefined;
  }

  /**
   * Stops accepting and starting work and cancels timers (parked items are dropped), then waits for
   * the handlings in flight. With `drainMs`, those still running after it are abandoned: aborted
   * with `reason` (fenced: no further side effect) and waited for at most `ABANDON_WAIT_MS` more.
   * Resolves with how many were abandoned.
   */
  async stop(options: { drainMs?: number; reason?: unknown } = {}): Promise<{ abandoned: number }> {
    this.stopped = true;
    this.roomMade(); // nothing more is taken: producers waiting for room stop now
    this.wakeups.cancelAll();
    let abandoned = 0;
    if (this.running > 0 && !(await this.idleWithin(options.drainMs))) {
      for (const { entry } of this.queue.entries()) {
        if (!entry.handling) continue;
        entry.handling.abort(options.reason ?? new Error('stopped: handling abandoned'));
        abandoned++;
      }
      await this.idleWithin(ABANDON_WAIT_MS);
    }
    for (const entry of this.queue.clear()) entry.waiters.splice(0).forEach((w) => w({ kind: 'done', note: 'stopped' }));
    return { abandoned };
  }

  /** True once nothing runs, false when `ms` passed first (undefined = wait as long as it takes). */
  private idleWithin(ms: number | undefined): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = ms === undefined ? undefined : this.clock.setTimeout(() => resolve(false), ms);
      this.idleWaiters.push(() => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private ready(key: string): void {
    if (this.stopped) return;
    if (this.queue.markReady(key)) queueMicrotask(() => this.pump());
  }

  /** After a key's items changed: wake it now, later, or forget its wake-up. */
  private arrange(key: string, nextDue: number | undefined): void {
    if (this.stopped) return;
    if (nextDue === undefined) return this.wakeups.cancel(key);
    if (nextDue <= this.clock.now()) return this.ready(key);
    this.wakeups.arm(key, nextDue);
  }

  private pump(): void {
    while (!this.stopped && this.running < this.concurrency) {
      const key = this.queue.take();
      if (key === undefined) return;
      this.running++;
      void this.runKey(key).finally(() => {
        this.running--;
        this.arrange(key, this.queue.release(key));
        if (this.running === 0) this.idleWaiters.splice(0).forEach((w) => w());
        this.pump();
      });
    }
  }

  /** Handles every due item of the key, oldest first, until none is due. */
  private async runKey(key: string): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const due = this.queue.due(key, this.clock.now());
      if (due.length === 0) return;
      for (const [id, entry] of due) {
        if (this.stopped) return;
        if (!this.queue.holds(key, id, entry)) continue; // removed meanwhile
        await this.handleOne(key, id, entry);
      }
    }
  }

  private async handleOne(key: string, id: string, entry: QueueEntry<I>): Promise<void> {
    const version = entry.version;
    const handledItem = entry.item;
    const waiters = entry.waiters.splice(0);
    const started = this.clock.now();
    const handling = new AbortController();
    entry.handling = handling;
    entry.handlingSince = started;
    entry.expedited = false;
    let handled: Handled;
    try {
      handled = { outcome: await this.options.handle(key, id, entry.item, entry.failures.attempts, handling.signal) };
    } catch (err) {
      handled =
        this.stopped && handling.signal.aborted
          ? { abandoned: true }
          : { thrown: err, ...classified(this.options.classify?.(err) ?? 'counted') };
    }
    entry.handling = undefined;
    entry.handlingSince = undefined;
    entry.handled = true;
    const s = settle(handled, entry.failures, this.retry);
    entry.failures = s.failures;
    const settledAt = this.clock.now();
    const note = s.outcome.kind === 'failed' ? undefined : s.outcome.note;
    entry.last = { at: settledAt, result: s.result, ...(note ? { note } : {}), ...('thrown' in handled ? { error: handled.thrown } : {}) };
    if (s.result !== 'abandoned') this.options.onOutcome?.(key, id, entry.item, s.outcome, settledAt - started, s.result);
    waiters.forEach((w) => w(s.outcome));
    if (s.result === 'abandoned' || !this.queue.holds(key, id, entry)) return;
    if (entry.version !== version) {
      if (!this.options.redundant?.(entry.item, handledItem)) return; // re-enqueued while running: due now, handled next round
      entry.waiters.splice(0).forEach((w) => w(s.outcome)); // this handling covered the copy too
    }
    // Expedited while it ran: due at once, unless it is backing off after a throw.
    const expedited = (entry.expedited as boolean | undefined) === true && entry.failures.throws === 0; // set meanwhile by expedite()
    entry.expedited = false;
    if (s.action.kind === 'requeue') entry.dueAt = expedited ? settledAt : settledAt + s.action.afterMs;
    else {
      this.queue.forget(key, id);
      this.roomMade();
    }
  }
}

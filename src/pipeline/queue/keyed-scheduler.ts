import { BackoffPolicy, nextDelayMs } from '../../util/backoff';
import type { Outcome } from '../reconcile/outcome';
import type { FailureKind } from './failure';
import { Timers, realTimers } from './timers';

/**
 * A keyed work scheduler in the spirit of client-go's workqueue, for reconcilers.
 *
 * Guarantees:
 * - the items of one key are never handled concurrently, and are handled in `order` (per resource,
 *   one operation at a time, oldest first);
 * - different keys run in parallel, at most `concurrency` at once;
 * - repeats collapse: enqueuing an item that is already waiting replaces it (latest state wins) and
 *   makes it due now; enqueuing one that is being handled makes it due again right after, unless
 *   `redundant` says, once the handling is over, that the new copy adds nothing;
 * - `again` parks an item until its delay passes; a throw is retried with backoff, and after
 *   `maxAttempts` consecutive throws the item fails (the caller dead-letters it).
 *
 * `enqueue` returns a promise settled with the outcome of the item's next handling, so a change-feed
 * batch can be checkpointed once each of its documents was handled (or parked) once.
 */
export interface KeyedSchedulerOptions<I> {
  /** Keys handled in parallel. @defaultValue 16 */
  concurrency?: number;
  /** Order of the due items of one key. @defaultValue insertion order */
  order?: (a: I, b: I) => number;
  /**
   * Handles one item; re-read current state rather than trusting `item` blindly. `signal` aborts
   * when the item is removed while being handled (its lease moved): stop before the next side effect.
   */
  handle: (key: string, id: string, item: I, attempt: number, signal: AbortSignal) => Promise<Outcome>;
  /** Consecutive throws before an item fails. @defaultValue 8 */
  maxAttempts?: number;
  /**
   * What a throw means (see `failure.ts`): `retriable` (a dependency down or throttling) is retried
   * with backoff without counting towards `maxAttempts`, so an outage fails nothing; `terminal` fails
   * the item at once; `counted` is retried until `maxAttempts` in a row.
   * @defaultValue every throw is `counted`
   */
  classify?: (err: unknown) => FailureKind;
  /** Delays between retries of a throwing item. */
  retryBackoff?: BackoffPolicy;
  /**
   * Asked when an item was enqueued again while being handled, once the handling is over: true =
   * the new copy adds nothing to what was handled (the same version seen twice, or the echo of a
   * write the handler itself made, which can arrive before the handler recorded it as its own), so
   * the handling's outcome stands.
   */
  redundant?: (next: I, handled: I) => boolean;
  /** Called after every handling (metrics, taps). */
  onOutcome?: (key: string, id: string, item: I, outcome: Outcome, durationMs: number) => void;
  timers?: Timers;
}

interface Entry<I> {
  item: I;
  dueAt: number;
  /** Bumped by every enqueue, so a change that arrives mid-handling is not mistaken for handled. */
  version: number;
  attempts: number;
  /** Consecutive throws of any kind (paces the retry backoff). */
  throws: number;
  waiters: Array<(o: Outcome) => void>;
  /** Set while the item is being handled: `remove` aborts it (fencing). */
  handling?: AbortController;
}

interface KeyState<I> {
  entries: Map<string, Entry<I>>;
  running: boolean;
  queued: boolean;
  timer?: unknown;
  timerDueAt?: number;
}

/** After abandoning handlings at stop, how long they may take to notice their fence. */
const ABANDON_WAIT_MS = 2000;

const DEFAULT_RETRY: BackoffPolicy = { retries: Infinity, initialDelayMs: 200, maxDelayMs: 30_000, multiplier: 2, jitter: 0.2 };

export class KeyedScheduler<I> {
  private readonly keys = new Map<string, KeyState<I>>();
  private readonly ready: string[] = [];
  private running = 0;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];
  private readonly timers: Timers;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly retryBackoff: BackoffPolicy;

  constructor(private readonly options: KeyedSchedulerOptions<I>) {
    this.timers = options.timers ?? realTimers;
    this.concurrency = options.concurrency ?? 16;
    this.maxAttempts = options.maxAttempts ?? 8;
    this.retryBackoff = options.retryBackoff ?? DEFAULT_RETRY;
    if (!(this.concurrency >= 1)) throw new RangeError(`concurrency must be at least 1, got ${this.concurrency}`);
  }

  /** Schedules `item` under `key` now; resolves with the outcome of its next handling. */
  enqueue(key: string, id: string, item: I): Promise<Outcome> {
    if (this.stopped) return Promise.resolve({ kind: 'failed', error: new Error('scheduler stopped') });
    let state = this.keys.get(key);
    if (!state) {
      state = { entries: new Map(), running: false, queued: false };
      this.keys.set(key, state);
    }
    const existing = state.entries.get(id);
    const entry: Entry<I> = existing ?? { item, dueAt: 0, version: 0, attempts: 0, throws: 0, waiters: [] };
    entry.item = item;
    entry.dueAt = this.timers.now();
    entry.version++;
    state.entries.set(id, entry);
    const settled = new Promise<Outcome>((resolve) => entry.waiters.push(resolve));
    this.markReady(key, state);
    return settled;
  }

  /**
   * Drops waiting and parked items that match (e.g. those of a lease this instance lost), and
   * aborts the handling of matching items in flight with `reason`.
   */
  remove(predicate: (key: string, id: string, item: I) => boolean, reason?: unknown): number {
    let removed = 0;
    for (const [key, state] of this.keys) {
      for (const [id, entry] of state.entries) {
        if (!predicate(key, id, entry.item)) continue;
        state.entries.delete(id);
        entry.handling?.abort(reason ?? new Error(`${id} removed from the scheduler`));
        entry.waiters.splice(0).forEach((w) => w({ kind: 'done', note: 'removed' }));
        removed++;
      }
      this.cleanup(key, state);
    }
    return removed;
  }

  /** Number of items known (waiting, parked or running). */
  get size(): number {
    let n = 0;
    for (const s of this.keys.values()) n += s.entries.size;
    return n;
  }

  /** Items per key, for state dumps and metrics. */
  snapshot(): Array<{ key: string; id: string; item: I; dueInMs: number; attempts: number; running: boolean }> {
    const now = this.timers.now();
    const out: Array<{ key: string; id: string; item: I; dueInMs: number; attempts: number; running: boolean }> = [];
    for (const [key, s] of this.keys) {
      for (const [id, e] of s.entries) out.push({ key, id, item: e.item, dueInMs: Math.max(0, e.dueAt - now), attempts: e.attempts, running: s.running });
    }
    return out;
  }

  /**
   * Stops accepting and starting work and cancels timers (parked items are dropped), then waits for
   * the handlings in flight. With `drainMs`, those still running after it are abandoned: aborted
   * with `reason` (fenced: no further side effect) and waited for at most `ABANDON_WAIT_MS` more.
   * Resolves with how many were abandoned.
   */
  async stop(options: { drainMs?: number; reason?: unknown } = {}): Promise<{ abandoned: number }> {
    this.stopped = true;
    for (const state of this.keys.values()) {
      if (state.timer !== undefined) this.timers.clearTimeout(state.timer);
      state.timer = undefined;
    }
    this.ready.length = 0;
    let abandoned = 0;
    if (this.running > 0 && !(await this.idleWithin(options.drainMs))) {
      for (const state of this.keys.values()) {
        for (const e of state.entries.values()) {
          if (!e.handling) continue;
          e.handling.abort(options.reason ?? new Error('stopped: handling abandoned'));
          abandoned++;
        }
      }
      await this.idleWithin(ABANDON_WAIT_MS);
    }
    for (const state of this.keys.values()) {
      for (const e of state.entries.values()) e.waiters.splice(0).forEach((w) => w({ kind: 'done', note: 'stopped' }));
    }
    this.keys.clear();
    return { abandoned };
  }

  /** True once nothing runs, false when `ms` passed first (undefined = wait as long as it takes). */
  private idleWithin(ms: number | undefined): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = ms === undefined ? undefined : this.timers.setTimeout(() => resolve(false), ms);
      this.idleWaiters.push(() => {
        if (timer !== undefined) this.timers.clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private markReady(key: string, state: KeyState<I>): void {
    if (state.running || state.queued || this.stopped) return;
    state.queued = true;
    this.ready.push(key);
    // Deferred so a synchronous burst (one change-feed batch) is ordered as a whole before handling.
    queueMicrotask(() => this.pump());
  }

  private pump(): void {
    while (this.running < this.concurrency && this.ready.length > 0 && !this.stopped) {
      const key = this.ready.shift() as string;
      const state = this.keys.get(key);
      if (!state) continue;
      state.queued = false;
      state.running = true;
      this.running++;
      void this.runKey(key, state).finally(() => {
        state.running = false;
        this.running--;
        this.cleanup(key, state);
        if (this.running === 0) this.idleWaiters.splice(0).forEach((w) => w());
        this.pump();
      });
    }
  }

  /** Handles every due item of the key, oldest first, until none is due; then arms the key's timer. */
  private async runKey(key: string, state: KeyState<I>): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const now = this.timers.now();
      const due = [...state.entries].filter(([, e]) => e.dueAt <= now);
      if (due.length === 0) break;
      const order = this.options.order;
      if (order) due.sort(([, a], [, b]) => order(a.item, b.item));
      for (const [id, entry] of due) {
        if (this.stopped) return;
        if (state.entries.get(id) !== entry) continue; // removed meanwhile
        await this.handleOne(key, id, entry, state);
      }
    }
  }

  private async handleOne(key: string, id: string, entry: Entry<I>, state: KeyState<I>): Promise<void> {
    const version = entry.version;
    const handled = entry.item;
    const waiters = entry.waiters.splice(0);
    const started = this.timers.now();
    let outcome: Outcome;
    const handling = new AbortController();
    entry.handling = handling;
    try {
      outcome = await this.options.handle(key, id, entry.item, entry.attempts, handling.signal);
      entry.attempts = 0;
      entry.throws = 0;
    } catch (err) {
      // Abandoned by stop(): not a failure of the item; the range's next owner takes it up.
      if (this.stopped && handling.signal.aborted) {
        entry.handling = undefined;
        waiters.forEach((w) => w({ kind: 'done', note: 'abandoned at stop' }));
        return;
      }
      entry.throws++;
      const kind = this.options.classify?.(err) ?? 'counted';
      if (kind !== 'retriable') entry.attempts++;
      const error = err instanceof Error ? err : new Error(String(err));
      outcome =
        kind === 'terminal' || entry.attempts >= this.maxAttempts
          ? { kind: 'failed', error }
          : { kind: 'again', afterMs: nextDelayMs(this.retryBackoff, entry.throws - 1), note: `retry after error: ${error.message}` };
    }
    entry.handling = undefined;
    const finished = this.timers.now();
    this.options.onOutcome?.(key, id, entry.item, outcome, finished - started);
    waiters.forEach((w) => w(outcome));
    if (state.entries.get(id) !== entry) return;
    if (entry.version !== version) {
      if (!this.options.redundant?.(entry.item, handled)) return; // re-enqueued while running: due now, handled next round
      entry.waiters.splice(0).forEach((w) => w(outcome)); // this handling covered the copy too
    }
    if (outcome.kind === 'again') entry.dueAt = finished + Math.max(0, outcome.afterMs);
    else state.entries.delete(id);
  }

  private cleanup(key: string, state: KeyState<I>): void {
    if (state.running) return;
    if (state.entries.size === 0) {
      if (state.timer !== undefined) this.timers.clearTimeout(state.timer);
      if (!state.queued) this.keys.delete(key);
      return;
    }
    if (this.stopped || state.queued) return;
    let next = Infinity;
    for (const e of state.entries.values()) next = Math.min(next, e.dueAt);
    const now = this.timers.now();
    if (next <= now) {
      this.markReady(key, state);
      return;
    }
    if (state.timer !== undefined && state.timerDueAt === next) return;
    if (state.timer !== undefined) this.timers.clearTimeout(state.timer);
    state.timerDueAt = next;
    state.timer = this.timers.setTimeout(() => {
      state.timer = undefined;
      state.timerDueAt = undefined;
      this.markReady(key, state);
    }, next - now);
  }
}

import type { QueueWaiting } from '../events';
import type { Outcome } from './outcome';
import { NO_FAILURES, type FailureCount } from './retry-policy';

/**
 * The queue's bookkeeping, without workers or timers (client-go's workqueue `queue.go`, keyed):
 * items live under a key and an id; a key is either idle, ready (in line for a worker) or taken by
 * one worker, never two, so the items of one key are never handled at once. Adding an item that is
 * already known replaces it (latest state wins) and makes it due now; its version tells a worker
 * that it changed while being handled.
 *
 * Two lines, when `startedFirst` is on: keys with work already started (an item handled before, or
 * one `started` says began elsewhere) go before keys whose items are all new, which still get one
 * turn in `FRESH_TURN_EVERY` while both wait. Under more load than the workers can take, finishing
 * what was started keeps completions at the workers' capacity: one line, first come first served,
 * spends it starting work whose follow-ups then wait behind yet newer work (latency grows for
 * everything, and nothing completes within it). The new work waits instead, where it costs nothing.
 */
export type { QueueWaiting };

export interface QueueEntry<I> {
  item: I;
  dueAt: number;
  /** Bumped by every add, so a change that arrives mid-handling is not mistaken for handled. */
  version: number;
  failures: FailureCount;
  /** Settled with the outcome of the item's next handling. */
  waiters: Array<(o: Outcome) => void>;
  /** Set while the item is being handled: removing it aborts the handling (fencing). */
  handling?: AbortController;
  /** Expedited while being handled: an `again` of that handling is due at once. */
  expedited?: boolean;
  /** Handled at least once here: its key goes in the line of started work. */
  handled?: boolean;
  /** When the handling in progress began (ms), while `handling` is set. */
  handlingSince?: number;
  /** How the last handling settled, for operators asking why the item waits (`opstream explain`). */
  last?: LastHandling;
}

/** How an item's last handling settled: when, the result, and its note or error. */
export interface LastHandling {
  at: number;
  result: 'done' | 'requeued' | 'retried' | 'failed' | 'abandoned';
  note?: string;
  /** The error a throw ended with (`retried` or `failed`). */
  error?: unknown;
}

export interface KeyedQueueOptions<I> {
  /** Order of the due items of one key. @defaultValue insertion order */
  order?: (a: I, b: I) => number;
  /** Started work goes before new work (see the class comment). @defaultValue false: one line */
  startedFirst?: boolean;
  /** An item started before this queue saw it (e.g. by another instance), so it counts as started. */
  started?: (item: I) => boolean;
}

/** While both lines wait, new work gets one turn in this many. */
export const FRESH_TURN_EVERY = 8;

interface KeySlot<I> {
  entries: Map<string, QueueEntry<I>>;
  taken: boolean;
  ready: boolean;
}

export class KeyedQueue<I> {
  private readonly slots = new Map<string, KeySlot<I>>();
  /** The keys each id is known under, so that `expedite` visits those items only, not the whole queue. */
  private readonly keysOfId = new Map<string, Set<string>>();
  /** Keys in line with started work, and (with `startedFirst` off, all keys) with new work only. */
  private readonly readyStarted = new Line();
  private readonly readyFresh = new Line();
  /** Turns given to started work since new work last had one while waiting. */
  private startedTurns = 0;
  /** Items known: kept as they come and go, since metrics ask on every enqueue and settlement. */
  private count = 0;

  constructor(private readonly options: KeyedQueueOptions<I> = {}) {}

  /** Adds or replaces an item, due at `now`; resolves with the outcome of its next handling. */
  add(key: string, id: string, item: I, now: number): Promise<Outcome> {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { entries: new Map(), taken: false, ready: false };
      this.slots.set(key, slot);
    }
    const entry: QueueEntry<I> = slot.entries.get(id) ?? { item, dueAt: now, version: 0, failures: NO_FAILURES, waiters: [] };
    entry.item = item;
    entry.dueAt = now;
    entry.version++;
    if (!slot.entries.has(id)) {
      this.count++;
      this.index(id, key);
    }
    slot.entries.set(id, entry);
    const settled = new Promise<Outcome>((resolve) => entry.waiters.push(resolve));
    this.markReady(key);
    return settled;
  }

  /** Puts an idle key in line for a worker; true when it was not already in line or taken. */
  markReady(key: string): boolean {
    const slot = this.slots.get(key);
    if (!slot || slot.taken || slot.ready) return false;
    slot.ready = true;
    (this.options.startedFirst && this.isStarted(slot) ? this.readyStarted : this.readyFresh).push(key);
    return true;
  }

  /** The next key in line, now taken by the caller until it calls `release`. */
  take(): string | undefined {
    for (;;) {
      const freshTurn = this.readyStarted.length === 0 || (this.readyFresh.length > 0 && this.startedTurns >= FRESH_TURN_EVERY - 1);
      const key = (freshTurn ? this.readyFresh : this.readyStarted).shift();
      if (key === undefined) return undefined;
      const slot = this.slots.get(key);
      if (!slot || !slot.ready) continue;
      this.startedTurns = freshTurn || this.readyFresh.length === 0 ? 0 : this.startedTurns + 1;
      slot.ready = false;
      slot.taken = true;
      return key;
    }
  }

  get hasReady(): boolean {
    return this.readyStarted.length > 0 || this.readyFresh.length > 0;
  }

  /** Keys in line: with work already started, and with new work only. */
  get waiting(): QueueWaiting {
    return { started: this.readyStarted.length, fresh: this.readyFresh.length };
  }

  private isStarted(slot: KeySlot<I>): boolean {
    for (const e of slot.entries.values()) if (e.handled || this.options.started?.(e.item)) return true;
    return false;
  }

  /** The items of a key due at `now`, in `order`. */
  due(key: string, now: number): Array<[string, QueueEntry<I>]> {
    const slot = this.slots.get(key);
    if (!slot) return [];
    const due = [...slot.entries].filter(([, e]) => e.dueAt <= now);
    const order = this.options.order;
    if (order) due.sort(([, a], [, b]) => order(a.item, b.item));
    return due;
  }

  /** The ids of the items known under `key`. */
  idsUnder(key: string): string[] {
    return [...(this.slots.get(key)?.entries.keys() ?? [])];
  }

  /** Whether an item is known under `key`/`id`. */
  has(key: string, id: string): boolean {
    return this.slots.get(key)?.entries.has(id) ?? false;
  }

  /** Whether `entry` is still the item known under `key`/`id` (not removed or replaced meanwhile). */
  holds(key: string, id: string, entry: QueueEntry<I>): boolean {
    return this.slots.get(key)?.entries.get(id) === entry;
  }

  /** Drops one item (it is done, or failed for good). */
  forget(key: string, id: string): void {
    if (this.slots.get(key)?.entries.delete(id)) {
      this.count--;
      this.unindex(id, key);
    }
  }

  private index(id: string, key: string): void {
    const keys = this.keysOfId.get(id);
    if (keys) keys.add(key);
    else this.keysOfId.set(id, new Set([key]));
  }

  private unindex(id: string, key: string): void {
    const keys = this.keysOfId.get(id);
    if (keys?.delete(key) && keys.size === 0) this.keysOfId.delete(id);
  }

  /**
   * A worker is done with a key. Returns when its earliest remaining item falls due, or
   * undefined when none remains (the key is then forgotten unless it is in line again).
   */
  release(key: string): number | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    slot.taken = false;
    return this.nextDue(key);
  }

  /** When the earliest item of an idle key falls due; undefined when it has none (and is dropped) or is busy. */
  nextDue(key: string): number | undefined {
    const slot = this.slots.get(key);
    if (!slot || slot.taken) return undefined;
    if (slot.entries.size === 0) {
      if (!slot.ready) this.slots.delete(key);
      return undefined;
    }
    if (slot.ready) return undefined;
    let next = Infinity;
    for (const e of slot.entries.values()) next = Math.min(next, e.dueAt);
    return next;
  }

  /**
   * Makes the items with these ids due at `now`: a parked one wakes (unless it is backing off after
   * a throw: an outage is not hurried by hints); one being handled is marked, so that an `again` of
   * its handling is due at once. Returns how many were found and the keys whose items woke.
   */
  expedite(ids: ReadonlySet<string>, now: number): { found: number; woken: string[] } {
    let found = 0;
    const woken = new Set<string>();
    for (const id of ids) {
      for (const key of this.keysOfId.get(id) ?? []) {
        const entry = this.slots.get(key)?.entries.get(id);
        if (!entry) continue;
        found++;
        if (entry.handling) entry.expedited = true;
        else if (entry.dueAt > now && entry.failures.throws === 0) {
          entry.dueAt = now;
          woken.add(key);
        }
      }
    }
    return { found, woken: [...woken] };
  }

  /** Removes the items that match and hands them back (the caller fences and settles them). */
  remove(predicate: (key: string, id: string, item: I) => boolean): Array<{ key: string; id: string; entry: QueueEntry<I> }> {
    const removed: Array<{ key: string; id: string; entry: QueueEntry<I> }> = [];
    for (const [key, slot] of this.slots) {
      for (const [id, entry] of slot.entries) {
        if (!predicate(key, id, entry.item)) continue;
        slot.entries.delete(id);
        this.count--;
        this.unindex(id, key);
        removed.push({ key, id, entry });
      }
    }
    return removed;
  }

  /** Every item known, with its key and whether its key is taken by a worker. */
  *entries(): Generator<{ key: string; id: string; entry: QueueEntry<I>; taken: boolean }> {
    for (const [key, slot] of this.slots) for (const [id, entry] of slot.entries) yield { key, id, entry, taken: slot.taken };
  }

  /** Keys known (for wake-ups after removals). */
  keys(): string[] {
    return [...this.slots.keys()];
  }

  /** Forgets everything (at stop); returns the entries that were still known. */
  clear(): Array<QueueEntry<I>> {
    const all = [...this.entries()].map((e) => e.entry);
    this.slots.clear();
    this.keysOfId.clear();
    this.readyStarted.clear();
    this.readyFresh.clear();
    this.count = 0;
    return all;
  }

  get size(): number {
    return this.count;
  }
}

/** A first-in first-out line of keys; `shift` in O(1) (an array's is O(n) once it is long). */
class Line {
  private items: string[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(key: string): void {
    this.items.push(key);
  }

  shift(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head++];
    // Compact once the consumed part is most of the array, so memory follows the line's length.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

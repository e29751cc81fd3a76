/**
 * Shared reads: the facility any resource kind registers its Clusters Service list call with, so
 * that the looks of many operations share one call instead of one call each. A kind says how to list
 * its objects of one group by id (`SharedReadSource`: node pools per cluster, since Clusters Service
 * lists them under their cluster only); reads arriving within a short window are gathered per group
 * into one list call, and every object being followed in that group rides
 * along (`watch`), so one call refreshes them all and a follower whose object was seen since its own
 * last check needs no call at all (`latest`).
 *
 * An object the list does not return is gone (404), as a per-object read would say; a group that is
 * gone itself (the list answers 404) has none left. With a window of 0 nothing is shared: each read is
 * the kind's own per-object call (`readOne`), as before batching.
 */
import { failSpan, inSpan, isNotFound, ROOT_CONTEXT, tracer, type CsObservation, type Span } from '../../src/kit';

/** How a kind lists its objects: one call per group (a parent, say) for any number of ids. */
export interface SharedReadSource<T> {
  /** What the reads are of, in span names and attributes (`node pool`). */
  readonly kind: string;
  /** The objects of `group` among `ids`, in one call (absent = gone); a gone group answers none. */
  list(group: string, ids: readonly string[]): Promise<readonly T[]>;
  /** One object by itself, undefined when gone: the read when nothing is shared (window 0). */
  readOne(group: string, id: string): Promise<T | undefined>;
  idOf(item: T): string;
}

/**
 * A source whose list call answers a group whole (Clusters Service's lists of a cluster's node pools,
 * external auths and credentials take page and size only): the objects asked for are picked out of
 * it, and a group gone (404) has none left. `observeOne` is the per-object read (404 = gone).
 */
export function wholeGroupSource<T>(source: {
  kind: string;
  listAll(group: string): Promise<readonly T[]>;
  observeOne(group: string, id: string): Promise<CsObservation<T>>;
  idOf(item: T): string;
}): SharedReadSource<T> {
  return {
    kind: source.kind,
    idOf: source.idOf,
    async list(group, ids) {
      const wanted = new Set(ids);
      const all = await source.listAll(group).catch((err: unknown) => (isNotFound(err) ? [] : Promise.reject(err)));
      return all.filter((item) => wanted.has(source.idOf(item)));
    },
    async readOne(group, id) {
      const read = await source.observeOne(group, id);
      return read.found ? read.status : undefined;
    },
  };
}

export interface SharedReadsOptions {
  /** Reads arriving within this window share one call per group; 0 = one call per read, nothing rides along. @defaultValue 10 */
  windowMs?: number;
  /** Objects in one call (one page of the list). @defaultValue 100 */
  maxIdsPerCall?: number;
  /** A watched object nobody read for this long stops riding along (its follower went away). @defaultValue 120_000 */
  watchTtlMs?: number;
  /** A watched object rides along again only once its last observation is this old. @defaultValue 1000 */
  rideAgainAfterMs?: number;
  now?: () => number;
}

/** What a call sent at `requestedAt` found of one object: the object, or nothing (gone). */
export interface SharedRead<T> {
  readonly item: T | undefined;
  readonly requestedAt: number;
}

interface PendingRead<T> {
  resolve(read: SharedRead<T>): void;
  reject(err: unknown): void;
  span: Span;
}

const SEP = '\u0000';
const keyOf = (group: string, id: string): string => `${group}${SEP}${id}`;

export class SharedReads<T> {
  private readonly windowMs: number;
  private readonly maxIdsPerCall: number;
  private readonly watchTtlMs: number;
  private readonly rideAgainAfterMs: number;
  private readonly now: () => number;
  /** group → id → reads waiting for the next call. */
  private readonly pending = new Map<string, Map<string, Array<PendingRead<T>>>>();
  /** group → id → when a follower last asked for it to ride along. */
  private readonly watched = new Map<string, Map<string, number>>();
  private readonly seen = new Map<string, SharedRead<T>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: SharedReadSource<T>,
    options: SharedReadsOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 10;
    this.maxIdsPerCall = options.maxIdsPerCall ?? 100;
    this.watchTtlMs = options.watchTtlMs ?? 120_000;
    this.rideAgainAfterMs = options.rideAgainAfterMs ?? 1000;
    this.now = options.now ?? Date.now;
    if (!(this.windowMs >= 0)) throw new RangeError(`windowMs must be >= 0, got ${this.windowMs}`);
    if (!(Number.isInteger(this.maxIdsPerCall) && this.maxIdsPerCall >= 1))
      throw new RangeError(`maxIdsPerCall must be a whole number >= 1, got ${this.maxIdsPerCall}`);
  }

  /** Reads share calls (a window is set): a reader that waits for the shared tick may find its object read for free. */
  get batching(): boolean {
    return this.windowMs > 0;
  }

  /** The object from a call sent now or a few milliseconds later (the group's shared list when batching). */
  read(group: string, id: string): Promise<SharedRead<T>> {
    if (this.windowMs === 0) {
      const requestedAt = this.now();
      return this.source.readOne(group, id).then((item) => ({ item, requestedAt }));
    }
    // The shared call serves many handlings: it is a trace of its own, linked to each reader's wait.
    const span = tracer.startSpan(`${this.source.kind} (shared read)`, {
      attributes: { 'opstream.cs.group': group, 'opstream.cs.id': id },
    });
    return new Promise<SharedRead<T>>((resolve, reject) => {
      const byId = this.pending.get(group) ?? new Map<string, Array<PendingRead<T>>>();
      const reads = byId.get(id) ?? [];
      reads.push({
        resolve: (r) => (span.end(), resolve(r)),
        reject: (err) => (failSpan(span, err), span.end(), reject(err)),
        span,
      });
      byId.set(id, reads);
      this.pending.set(group, byId);
      this.timer ??= setTimeout(() => this.flush(), this.windowMs);
    });
  }

  /** The newest observation of this object from a call sent after `since` (ms), if any. */
  latest(group: string, id: string, since: number | undefined): SharedRead<T> | undefined {
    const seen = this.seen.get(keyOf(group, id));
    return seen && (since === undefined || seen.requestedAt > since) ? seen : undefined;
  }

  /** Include this object in every call its group makes from now on, until `unwatch` or `watchTtlMs` without a read. */
  watch(group: string, id: string): void {
    if (this.windowMs === 0) return;
    const ids = this.watched.get(group) ?? new Map<string, number>();
    ids.set(id, this.now());
    this.watched.set(group, ids);
  }

  unwatch(group: string, id: string): void {
    const ids = this.watched.get(group);
    ids?.delete(id);
    if (ids?.size === 0) this.watched.delete(group);
    this.seen.delete(keyOf(group, id));
  }

  /** Objects riding along, for diagnostics. */
  get watching(): number {
    let n = 0;
    for (const ids of this.watched.values()) n += ids.size;
    return n;
  }

  private flush(): void {
    this.timer = undefined;
    const pending = new Map(this.pending);
    this.pending.clear();
    for (const [group, reads] of pending) {
      const requested = [...reads.keys()];
      const riders = this.riders(group, new Set(requested));
      for (let i = 0; i * this.maxIdsPerCall < requested.length; i++) {
        const chunk = requested.slice(i * this.maxIdsPerCall, (i + 1) * this.maxIdsPerCall);
        // Riders fill the room left in the group's first call only: they never cost a call of their own.
        const ride = i === 0 ? riders.slice(0, this.maxIdsPerCall - chunk.length) : [];
        const links = chunk.flatMap((id) => (reads.get(id) ?? []).map((r) => ({ context: r.span.spanContext() })));
        const attributes = { 'opstream.cs.group': group, 'opstream.cs.requested': chunk.length, 'opstream.cs.riding': ride.length };
        void inSpan(`${this.source.kind} batch`, { parent: ROOT_CONTEXT, links, attributes }, () => this.call(group, chunk, ride, reads));
      }
    }
  }

  private riders(group: string, requested: ReadonlySet<string>): string[] {
    const ids = this.watched.get(group);
    if (!ids) return [];
    const now = this.now();
    const out: string[] = [];
    for (const [id, lastRead] of ids) {
      if (lastRead < now - this.watchTtlMs) {
        this.unwatch(group, id);
        continue;
      }
      const seenAt = this.seen.get(keyOf(group, id))?.requestedAt;
      if (!requested.has(id) && (seenAt === undefined || now - seenAt >= this.rideAgainAfterMs)) out.push(id);
    }
    // Longest unseen first, so a full call still gets round to everyone.
    const seenAt = (id: string): number => this.seen.get(keyOf(group, id))?.requestedAt ?? 0;
    return out.sort((a, b) => seenAt(a) - seenAt(b));
  }

  private async call(
    group: string,
    chunk: readonly string[],
    ride: readonly string[],
    reads: ReadonlyMap<string, ReadonlyArray<PendingRead<T>>>,
  ): Promise<void> {
    const requestedAt = this.now();
    let found: Map<string, T>;
    try {
      const items = await this.source.list(group, [...chunk, ...ride]);
      found = new Map(items.map((item) => [this.source.idOf(item), item]));
    } catch (err) {
      for (const id of chunk) for (const r of reads.get(id) ?? []) r.reject(err);
      return;
    }
    const watched = this.watched.get(group);
    for (const id of ride) this.seen.set(keyOf(group, id), { item: found.get(id), requestedAt });
    for (const id of chunk) {
      const read: SharedRead<T> = { item: found.get(id), requestedAt };
      if (watched?.has(id)) this.seen.set(keyOf(group, id), read);
      for (const r of reads.get(id) ?? []) r.resolve(read);
    }
  }
}

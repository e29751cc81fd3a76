/**
 * Reads the status of many clusters with one Clusters Service call instead of one call each:
 * status reads that arrive within a short window share one `GET /clusters?search=id in (…)`, and
 * every cluster being followed rides along (`watch`), so one read refreshes them all. A follower
 * whose cluster was seen since its own last check then needs no call at all (`latest`).
 *
 * The list items carry the same status fields as `GET /clusters/{id}/status`; an item without a
 * status (a service that does not embed it) falls back to the per-cluster call, so nothing depends
 * on the embedding being there.
 */
import {
  armNameSearch,
  failSpan,
  inSpan,
  isNotFound,
  matchesArmName,
  quoteSearchValue,
  ROOT_CONTEXT,
  tracer,
  type ArmResourceName,
  type CallOptions,
  type KitClustersService,
  type CsCluster,
  type CsClusterStatus,
  type CsObservation,
  type Span,
} from '../../src/kit';

export interface ClusterStatusBatcherOptions {
  /** Reads arriving within this window share one call; 0 = one call per read, nothing rides along. @defaultValue 10 */
  windowMs?: number;
  /** Clusters in one call (one page of the search). @defaultValue 100 */
  maxIdsPerCall?: number;
  /** Searches by ARM name in one call (each adds a condition to the URL). @defaultValue 20 */
  maxNamesPerCall?: number;
  /** A watched cluster nobody read for this long stops riding along (its follower went away). @defaultValue 120_000 */
  watchTtlMs?: number;
  /**
   * A watched cluster rides along again only once its last observation is this old: when reads are
   * frequent (many followers), re-reading every watched cluster each time would cost more than it tells.
   * @defaultValue 1000
   */
  rideAgainAfterMs?: number;
  now?: () => number;
}

/** An observation and when the call that made it was sent: it shows CS as of that instant or later. */
export interface TimedObservation {
  readonly observation: CsObservation<CsClusterStatus>;
  readonly requestedAt: number;
  /** The cluster as listed (what an Update compares with its desired state); absent when only its status was read. */
  readonly cluster?: CsCluster;
}

/** The clusters ARM knows by one name, as a call sent at `requestedAt` listed them (with their status). */
export interface TimedNamedClusters {
  readonly clusters: readonly CsCluster[];
  readonly requestedAt: number;
}

interface PendingNamed {
  readonly name: ArmResourceName;
  readonly reads: Array<{ resolve(found: TimedNamedClusters): void; reject(err: unknown): void }>;
}

interface PendingRead {
  resolve(o: TimedObservation): void;
  reject(err: unknown): void;
  /** The reader's wait, in the reader's trace; the shared call links to it. */
  span: Span;
}

type StatusSource = Pick<KitClustersService, 'searchClusters' | 'observeClusterStatus' | 'getCluster'>;

/** `id in ('a', 'b')`. */
export function idListSearch(ids: readonly string[]): string {
  return `id in (${ids.map(quoteSearchValue).join(', ')})`;
}

/** One search for clusters by id and by ARM name: `id in (…) or (azure.subscription_id = … and …) or (…)`. */
function idsOrNamesSearch(ids: readonly string[], names: readonly ArmResourceName[]): string {
  const ors = names.map((n) => `(${armNameSearch(n)})`);
  return [...(ids.length > 0 ? [idListSearch(ids)] : []), ...ors].join(' or ');
}

const nameKey = (n: ArmResourceName): string => `${n.subscriptionId}/${n.resourceGroupName}/${n.resourceName}`.toLowerCase();

export class ClusterStatusBatcher {
  private readonly windowMs: number;
  private readonly maxIdsPerCall: number;
  private readonly maxNamesPerCall: number;
  private readonly watchTtlMs: number;
  private readonly rideAgainAfterMs: number;
  private readonly now: () => number;
  private readonly pending = new Map<string, PendingRead[]>();
  private readonly pendingNamed = new Map<string, PendingNamed>();
  /** Watched cluster id → when a follower last read it. */
  private readonly watched = new Map<string, number>();
  private readonly seen = new Map<string, TimedObservation>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cs: StatusSource,
    options: ClusterStatusBatcherOptions = {},
    private readonly callOptions: CallOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 10;
    this.maxIdsPerCall = options.maxIdsPerCall ?? 100;
    this.maxNamesPerCall = options.maxNamesPerCall ?? 20;
    this.watchTtlMs = options.watchTtlMs ?? 120_000;
    this.rideAgainAfterMs = options.rideAgainAfterMs ?? 1000;
    this.now = options.now ?? Date.now;
    if (!(this.windowMs >= 0)) throw new RangeError(`windowMs must be >= 0, got ${this.windowMs}`);
    if (!(Number.isInteger(this.maxIdsPerCall) && this.maxIdsPerCall >= 1))
      throw new RangeError(`maxIdsPerCall must be a whole number >= 1, got ${this.maxIdsPerCall}`);
    if (!(Number.isInteger(this.maxNamesPerCall) && this.maxNamesPerCall >= 1))
      throw new RangeError(`maxNamesPerCall must be a whole number >= 1, got ${this.maxNamesPerCall}`);
  }

  /**
   * Every cluster ARM knows by this name, with its status, from a call sent now or a few milliseconds
   * later: searches by name ride in the same call as the status reads by id (`or`), so a Delete's look
   * at what is left of its resource costs no call of its own when other clusters are read together.
   */
  observeNamed(name: ArmResourceName): Promise<TimedNamedClusters> {
    if (this.windowMs === 0) {
      const requestedAt = this.now();
      return this.cs
        .searchClusters(armNameSearch(name), this.callOptions)
        .then((found) => ({ clusters: found.filter((c) => matchesArmName(c, name)), requestedAt }));
    }
    return new Promise<TimedNamedClusters>((resolve, reject) => {
      const key = nameKey(name);
      const entry = this.pendingNamed.get(key) ?? { name, reads: [] };
      entry.reads.push({ resolve, reject });
      this.pendingNamed.set(key, entry);
      this.timer ??= setTimeout(() => this.flush(), this.windowMs);
    });
  }

  /** The status of one cluster from a call sent now or a few milliseconds later. */
  observe(clusterId: string): Promise<TimedObservation> {
    if (this.windowMs === 0) {
      const requestedAt = this.now();
      return this.cs.observeClusterStatus(clusterId, this.callOptions).then((observation) => ({ observation, requestedAt }));
    }
    // The shared call serves many handlings: it is a trace of its own, linked to each reader's wait.
    const span = tracer.startSpan('cluster status (shared read)', { attributes: { 'opstream.cs.cluster_id': clusterId } });
    return new Promise<TimedObservation>((resolve, reject) => {
      const reads = this.pending.get(clusterId) ?? [];
      const endSpan = (): void => span.end();
      reads.push({
        resolve: (o) => (endSpan(), resolve(o)),
        reject: (err) => (failSpan(span, err), endSpan(), reject(err)),
        span,
      });
      this.pending.set(clusterId, reads);
      this.timer ??= setTimeout(() => this.flush(), this.windowMs);
    });
  }

  /**
   * The cluster itself (with its status) from a call sent now or a few milliseconds later: the shared
   * search when batching, `GET /clusters/{id}` otherwise. A 404 is an observation (not found).
   */
  async observeCluster(clusterId: string): Promise<TimedObservation> {
    if (this.windowMs > 0) {
      const timed = await this.observe(clusterId);
      // Listed without a status, the status call answered: the cluster itself is still needed.
      if (timed.cluster || !timed.observation.found) return timed;
    }
    const requestedAt = this.now();
    try {
      const cluster = await this.cs.getCluster(clusterId, this.callOptions);
      const observation = observationOf(cluster);
      if (observation) return { observation, requestedAt, cluster };
      return { observation: await this.cs.observeClusterStatus(clusterId, this.callOptions), requestedAt, cluster };
    } catch (err) {
      if (isNotFound(err)) return { observation: { found: false }, requestedAt };
      throw err;
    }
  }

  /** The newest observation of this cluster from a call sent after `since` (ms), if any. */
  latest(clusterId: string, since: number | undefined): TimedObservation | undefined {
    const seen = this.seen.get(clusterId);
    return seen && (since === undefined || seen.requestedAt > since) ? seen : undefined;
  }

  /** Reads share calls (a window is set): a reader that waits for the shared tick may find its cluster read for free. */
  get batching(): boolean {
    return this.windowMs > 0;
  }

  /** Include this cluster in every call from now on, until `unwatch` or `watchTtlMs` without a read. */
  watch(clusterId: string): void {
    if (this.windowMs > 0) this.watched.set(clusterId, this.now());
  }

  unwatch(clusterId: string): void {
    this.watched.delete(clusterId);
    this.seen.delete(clusterId);
  }

  /** Clusters riding along, for diagnostics. */
  get watching(): number {
    return this.watched.size;
  }

  private flush(): void {
    this.timer = undefined;
    const reads = new Map(this.pending);
    const named = [...this.pendingNamed.values()];
    this.pending.clear();
    this.pendingNamed.clear();
    const requested = [...reads.keys()];
    const riders = this.riders(new Set(requested));
    const calls = Math.max(Math.ceil(requested.length / this.maxIdsPerCall), Math.ceil(named.length / this.maxNamesPerCall));
    for (let i = 0; i < calls; i++) {
      const chunk = requested.slice(i * this.maxIdsPerCall, (i + 1) * this.maxIdsPerCall);
      const names = named.slice(i * this.maxNamesPerCall, (i + 1) * this.maxNamesPerCall);
      // Riders fill the room left in the first call only: they never cost a call of their own.
      const ride = i === 0 ? riders.slice(0, this.maxIdsPerCall - chunk.length) : [];
      const links = chunk.flatMap((id) => (reads.get(id) ?? []).map((r) => ({ context: r.span.spanContext() })));
      const attributes = {
        'opstream.cs.clusters_requested': chunk.length,
        'opstream.cs.clusters_riding': ride.length,
        'opstream.cs.names_searched': names.length,
      };
      void inSpan('cluster status batch', { parent: ROOT_CONTEXT, links, attributes }, () => this.read(chunk, ride, reads, names));
    }
  }

  private riders(requested: Set<string>): string[] {
    const now = this.now();
    const out: string[] = [];
    for (const [id, lastRead] of this.watched) {
      if (lastRead < now - this.watchTtlMs) {
        this.watched.delete(id);
        this.seen.delete(id);
        continue;
      }
      const seenAt = this.seen.get(id)?.requestedAt;
      if (!requested.has(id) && (seenAt === undefined || now - seenAt >= this.rideAgainAfterMs)) out.push(id);
    }
    // Longest unseen first, so a full call still gets round to everyone.
    return out.sort((a, b) => (this.seen.get(a)?.requestedAt ?? 0) - (this.seen.get(b)?.requestedAt ?? 0));
  }

  private async read(
    chunk: readonly string[],
    ride: readonly string[],
    reads: Map<string, PendingRead[]>,
    named: readonly PendingNamed[] = [],
  ): Promise<void> {
    const requestedAt = this.now();
    const ids = [...chunk, ...ride];
    let found: Map<string, CsCluster>;
    try {
      const clusters = await this.cs.searchClusters(
        idsOrNamesSearch(
          ids,
          named.map((n) => n.name),
        ),
        this.callOptions,
      );
      found = new Map(clusters.map((c) => [c.id, c]));
    } catch (err) {
      for (const id of chunk) for (const r of reads.get(id) ?? []) r.reject(err);
      for (const n of named) for (const r of n.reads) r.reject(err);
      return;
    }
    for (const n of named) {
      const clusters = [...found.values()].filter((c) => matchesArmName(c, n.name));
      for (const r of n.reads) r.resolve({ clusters, requestedAt });
    }
    for (const id of ride) {
      const cluster = found.get(id);
      const observation = observationOf(cluster);
      if (observation) this.seen.set(id, { observation, requestedAt, ...(cluster && { cluster }) });
    }
    await Promise.all(
      chunk.map(async (id) => {
        let timed: TimedObservation;
        const cluster = found.get(id);
        const observation = observationOf(cluster);
        if (observation) timed = { observation, requestedAt, ...(cluster && { cluster }) };
        else {
          // Listed without a status: ask for it directly rather than guess.
          const again = this.now();
          try {
            timed = { observation: await this.cs.observeClusterStatus(id, this.callOptions), requestedAt: again };
          } catch (err) {
            for (const r of reads.get(id) ?? []) r.reject(err);
            return;
          }
        }
        if (this.watched.has(id)) this.seen.set(id, timed);
        for (const r of reads.get(id) ?? []) r.resolve(timed);
      }),
    );
  }
}

/** What a list item says of its cluster: absent = not found; listed without a status = unknown. */
function observationOf(cluster: CsCluster | undefined): CsObservation<CsClusterStatus> | undefined {
  if (!cluster) return { found: false };
  const status = cluster.status;
  if (!status?.state) return undefined;
  return {
    found: true,
    status: {
      kind: 'ClusterStatus',
      id: cluster.id,
      href: `${cluster.href}/status`,
      state: status.state,
      ...(status.description !== undefined && { description: status.description }),
      ...(status.provision_error_code !== undefined && { provision_error_code: status.provision_error_code }),
      ...(status.provision_error_message !== undefined && { provision_error_message: status.provision_error_message }),
    },
  };
}

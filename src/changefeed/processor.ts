import type { OtherProcessor } from './lease/other-processors';
import type { Container } from '@azure/cosmos';
import type { Observable } from 'rxjs';
import { Subject } from 'rxjs';
import { sleep } from './util/backoff';
import { effectivePartitionKeyIn, rangeContains, type PartitionKeyHashing, type PartitionKeyValue } from './util/epk';
import { ChangeFeedConfigurationError, ChangeFeedError, engineError, messageOf } from './errors';
import { childLogger } from './logger';
import type { ChangeFeedEvent, Emit, EventInput } from './events';
import type { ChangeFeedHandler, PoisonHandler } from './handler';
import type { AcquireReason } from './balancing/strategy';
import { Balancer } from './balancing/balancer';
import { bootstrapLeases } from './bootstrap/bootstrap';
import { replaceSplitLease } from './feed/split';
import { estimateLeaseLag } from './estimator';
import type { LeaseDocument } from './lease/lease-document';
import { isExpired, leaseTimestampMs, rangeOf } from './lease/lease-document';
import { accountHostOf, leasePrefix } from './lease/lease-ids';
import { configuredEndpointOf } from './lease/account-endpoint';
import { LeaseStore, type LeaseKeyPath } from './lease/lease-store';
import { adoptVersion0Leases } from './lease/version0';
import { OwnedLease } from './lease/owned-lease';
import type { ChangeFeedProcessorOptions, ResolvedOptions } from './options';
import { resolveOptions } from './options';
import type { CloseReason } from './supervisor';
import { LeaseSupervisor } from './supervisor';

/** What a processor reads and calls: the containers, your handler and your poison hook. */
export interface ChangeFeedProcessorDeps<T> {
  /** The monitored container. */
  feedContainer: Container;
  /** Partitioned on `/id` or `/partitionKey` (as .NET accepts), TTL on (`defaultTtl: -1`); may be shared by several processors. */
  leaseContainer: Container;
  handler: ChangeFeedHandler<T>;
  /** @defaultValue logs the document's id and the error, then moves on */
  onPoison?: PoisonHandler<T>;
  /**
   * Account endpoint whose host goes into lease ids, as .NET does.
   * @defaultValue the endpoint the feed container's CosmosClient was created with (never its regional write endpoint)
   */
  accountEndpoint?: string;
}

/** One lease as `getCurrentState()` reports it. */
export interface LeaseState {
  leaseToken: string;
  feedRange: { min: string; max: string };
  owner: string | null;
  /** Raw etag of the last checkpoint; `null` = from the beginning. */
  continuation: string | null;
  /** Last write (ms since epoch) and whether the lease is expired by it. */
  timestampMs: number;
  expired: boolean;
  ownedByThisInstance: boolean;
  /** Estimated changes (LSNs) not yet processed; undefined if not estimated or the estimate failed. */
  lag?: number;
  /** This instance only: when its reader last completed a read or handler attempt. */
  lastProgressAt?: number;
  lastCheckpointAt?: number;
  /** This instance only: when the reader's idle pause ends, if it is pausing (a wake-up ends it early). */
  idleUntil?: number;
}

/** What `getCurrentState()` reads, and so what it costs. */
interface CurrentStateOptions {
  /**
   * Estimate each lease's lag (one change feed read per lease): `true` every lease, `'owned'` only those
   * this instance holds, `false` none. A lease whose reader here is resting after catching up counts 0
   * without a read. @defaultValue true
   */
  estimateLag?: boolean | 'owned';
  /**
   * List every lease of the processor (one query); `false` reports only the leases this instance
   * holds, from memory, without a request. @defaultValue true
   */
  listing?: boolean;
}

/** A snapshot of the processor and of every lease of its prefix, from `getCurrentState()`. */
export interface ProcessorState {
  processorName: string;
  instanceName: string;
  running: boolean;
  leases: LeaseState[];
}

/**
 * What `wakePartitionKey` did: woke the reader of the lease whose range holds the key, or found none
 * here (the key's EPK is absent before `start()`: the container's hash is not known yet).
 */
export type WakeResult = { woke: true; leaseToken: string } | { woke: false; effectivePartitionKey?: string };

/** One instance of a processor: start it, watch its events, stop it (which releases its leases). */
export interface ChangeFeedProcessor {
  readonly instanceName: string;
  readonly processorName: string;
  /** Every event, see `events.ts`. Hot: subscribe before `start()` to see everything. */
  readonly events$: Observable<ChangeFeedEvent>;
  /** Validates the containers, creates the leases on first use, runs a first balancing cycle. */
  start(): Promise<void>;
  /** Stops acquiring, stops every reader (a batch in flight is not checkpointed) and releases the leases. */
  stop(): Promise<void>;
  /** All leases of this processor with owner, range, continuation and (one read per lease) lag; see `CurrentStateOptions`. */
  getCurrentState(options?: CurrentStateOptions): Promise<ProcessorState>;
  /** Lease tokens this instance runs readers for right now. */
  ownedLeaseTokens(): string[];
  /**
   * Reads the change feed of the range that holds `partitionKey` now, instead of after its idle
   * pause: for a writer that announces its writes (a hint), so the idle poll ceiling can be long.
   * A range this instance does not own (another instance's, or between owners) is left alone:
   * its owner's next poll finds the change. The key maps to its range by effective partition key,
   * hashed as the monitored container says (v1, v2 or hierarchical: `util/epk.ts`); a
   * hierarchical key takes its components as an array.
   */
  wakePartitionKey(partitionKey: PartitionKeyValue | PartitionKeyValue[]): WakeResult;
  /** Requests this instance sent to the lease container. */
  leaseStoreRequests(): number;
  /**
   * Other processors (other lease prefixes) with live leases on the same monitored container, as the
   * last widened lease listing found them (`otherProcessorsIntervalMs`): no request of its own.
   * Undefined before the first such listing, or with the option 0.
   */
  otherProcessors(): { atMs: number; processors: OtherProcessor[] } | undefined;
}

/** Creates a processor; nothing happens until `start()`. Throws `ChangeFeedConfigurationError` on bad options. */
export function createChangeFeedProcessor<T>(deps: ChangeFeedProcessorDeps<T>, options: ChangeFeedProcessorOptions): ChangeFeedProcessor {
  return new Processor<T>(deps, resolveOptions(options));
}

class Processor<T> implements ChangeFeedProcessor {
  private readonly events = new Subject<ChangeFeedEvent>();
  readonly events$ = this.events.asObservable();
  private readonly supervisors = new Map<string, LeaseSupervisor<T>>();
  private readonly closing = new Set<Promise<unknown>>();
  private store?: LeaseStore;
  private containerRid = '';
  /** The monitored container's partition key definition, read at start: it decides the EPK hash. */
  private partitionKeyHashing?: PartitionKeyHashing;
  private balancerStop?: AbortController;
  private balancerRun?: Promise<void>;
  private started?: Promise<void>;
  private stopping = false;
  private readonly emit: Emit;
  private readonly onPoison: PoisonHandler<T>;

  constructor(
    private readonly deps: ChangeFeedProcessorDeps<T>,
    private readonly options: ResolvedOptions,
  ) {
    const logger = childLogger(options.logger, { processorName: options.processorName, instanceName: options.instanceName });
    this.emit = (event: EventInput) => {
      const full = { ...event, at: Date.now(), instanceName: options.instanceName } as ChangeFeedEvent;
      if (full.type === 'changefeed.error')
        logger.warn(full.error.message, { event: full.type, leaseToken: full.leaseToken, retriable: full.error.retriable });
      else logger.debug(full.type, { ...full, type: undefined });
      this.events.next(full);
    };
    this.onPoison =
      deps.onPoison ??
      ((doc, error, context) => {
        logger.error('poison document skipped', {
          leaseToken: context.leaseToken,
          id: (doc as { id?: unknown })?.id,
          error: messageOf(error),
        });
      });
  }

  get instanceName(): string {
    return this.options.instanceName;
  }

  get processorName(): string {
    return this.options.processorName;
  }

  start(): Promise<void> {
    this.started ??= this.doStart().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  private async doStart(): Promise<void> {
    this.stopping = false;
    this.balancerStop = new AbortController();
    const { feedContainer, leaseContainer } = this.deps;
    const keyPath = await checkLeaseContainer(leaseContainer);
    const [{ resource: container }, { resource: database }] = await Promise.all([feedContainer.read(), feedContainer.database.read()]);
    if (!container?._rid || !database?._rid)
      throw new ChangeFeedConfigurationError(`container ${feedContainer.id} or its database has no _rid; does it exist?`);
    this.containerRid = container._rid;
    this.partitionKeyHashing = container.partitionKey ?? {};
    const endpoint = this.deps.accountEndpoint ?? configuredEndpointOf(feedContainer.database.client);
    if (!endpoint)
      throw new ChangeFeedConfigurationError('cannot tell the endpoint the CosmosClient was created with: pass accountEndpoint');
    const prefix = leasePrefix({
      processorName: this.options.processorName,
      accountHost: accountHostOf(endpoint),
      databaseRid: database._rid,
      containerRid: container._rid,
    });
    this.store = new LeaseStore(leaseContainer, prefix, this.options.clock, this.options.engineRetry, undefined, keyPath);
    if (this.options.otherProcessorsIntervalMs > 0)
      this.store.watchOthers = {
        processorName: this.options.processorName,
        intervalMs: this.options.otherProcessorsIntervalMs,
        leaseExpirationMs: this.options.leaseExpirationMs,
      };
    const adopted = await adoptVersion0Leases({
      feedContainer,
      store: this.store,
      nowMs: this.options.clock.now(),
      leaseExpirationMs: this.options.leaseExpirationMs,
    });
    if (adopted > 0) this.options.logger.info('version-0 leases taken over as version-1 leases', { prefix, adopted });
    await bootstrapLeases({
      feedContainer,
      store: this.store,
      startFrom: this.options.startFrom,
      nowMs: () => this.options.clock.now(),
      emit: this.emit,
      logger: this.options.logger,
      signal: this.balancerStop.signal,
    });
    this.balancerStop.signal.throwIfAborted();
    const balancer = new Balancer({
      store: this.store,
      options: this.options,
      emit: this.emit,
      running: () => new Set(this.supervisors.keys()),
      start: (lease, reason) => this.startLease(lease, reason),
      lose: (token, newOwner, gone) => this.supervisors.get(token)?.lose(newOwner, gone),
    });
    await balancer.cycle();
    this.emit({ type: 'changefeed.processor.started' });
    const signal = this.balancerStop.signal;
    this.balancerRun = (async () => {
      try {
        await sleep(this.options.leaseAcquireIntervalMs, signal);
        await balancer.run(signal);
      } catch {
        // aborted: stop() is under way
      }
    })();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    this.balancerStop?.abort(new Error('processor stopped'));
    await this.started.catch(() => undefined);
    await this.balancerRun;
    await Promise.all([...this.supervisors.values()].map((s) => s.stop()));
    while (this.closing.size > 0) await Promise.all([...this.closing]);
    this.started = undefined;
    this.emit({ type: 'changefeed.processor.stopped' });
  }

  ownedLeaseTokens(): string[] {
    return [...this.supervisors.keys()];
  }

  leaseStoreRequests(): number {
    return this.store?.requests ?? 0;
  }

  wakePartitionKey(partitionKey: PartitionKeyValue | PartitionKeyValue[]): WakeResult {
    // Before start() nothing is owned, so there is no reader to wake, whatever the hash.
    if (!this.partitionKeyHashing) return { woke: false };
    const epk = effectivePartitionKeyIn(this.partitionKeyHashing, partitionKey);
    for (const supervisor of this.supervisors.values()) {
      if (rangeContains(rangeOf(supervisor.owned.lease), epk)) {
        supervisor.wake();
        return { woke: true, leaseToken: supervisor.leaseToken };
      }
    }
    return { woke: false, effectivePartitionKey: epk };
  }

  async getCurrentState(options: CurrentStateOptions = {}): Promise<ProcessorState> {
    const store = this.requireStore();
    const leases = (options.listing ?? true) ? await store.list() : [...this.supervisors.values()].map((s) => s.owned.lease);
    const now = this.options.clock.now();
    const estimate = options.estimateLag ?? true;
    const states = await Promise.all(
      leases.map(async (stored): Promise<LeaseState> => {
        const supervisor = this.supervisors.get(stored.LeaseToken);
        // A lease of ours is where its reader got to, checkpoint held back or not.
        const lease = supervisor ? { ...stored, ContinuationToken: supervisor.owned.position } : stored;
        let lag: number | undefined;
        // A reader resting after a read that was not a full page has delivered everything up to then:
        // its lag is 0 as of that read (at most `maxPollDelayMs` ago), no request needed.
        if (supervisor?.idleUntil !== undefined && estimate !== false) lag = 0;
        else if (estimate === true || (estimate === 'owned' && supervisor))
          lag = await estimateLeaseLag(this.deps.feedContainer, this.containerRid, lease).catch(() => undefined);
        return {
          leaseToken: lease.LeaseToken,
          feedRange: rangeOf(lease),
          owner: lease.Owner ?? null,
          continuation: lease.ContinuationToken ?? null,
          timestampMs: leaseTimestampMs(lease),
          expired: isExpired(lease, now, this.options.leaseExpirationMs),
          ownedByThisInstance: supervisor !== undefined,
          lag,
          lastProgressAt: supervisor?.lastProgressAt,
          lastCheckpointAt: supervisor?.owned.lastCheckpointAt,
          idleUntil: supervisor?.idleUntil,
        };
      }),
    );
    states.sort((a, b) => (a.feedRange.min < b.feedRange.min ? -1 : a.feedRange.min > b.feedRange.min ? 1 : 0));
    return {
      processorName: this.options.processorName,
      instanceName: this.options.instanceName,
      running: this.started !== undefined && !this.stopping,
      leases: states,
    };
  }

  otherProcessors(): { atMs: number; processors: OtherProcessor[] } | undefined {
    return this.store?.others;
  }

  private requireStore(): LeaseStore {
    if (!this.store) throw new ChangeFeedError('the processor has not been started; call start() first', { retriable: false });
    return this.store;
  }

  private startLease(lease: LeaseDocument, reason: AcquireReason | 'split'): void {
    const store = this.requireStore();
    if (this.supervisors.has(lease.LeaseToken)) return;
    const owned = new OwnedLease(store, this.options.instanceName, lease, this.options.clock);
    if (this.stopping) {
      this.track(owned.release().catch(() => undefined));
      return;
    }
    const supervisor = new LeaseSupervisor<T>({
      feedContainer: this.deps.feedContainer,
      containerRid: this.containerRid,
      owned,
      options: this.options,
      handler: this.deps.handler,
      onPoison: this.onPoison,
      emit: this.emit,
    });
    this.supervisors.set(lease.LeaseToken, supervisor);
    this.emit({ type: 'changefeed.lease.acquired', leaseToken: lease.LeaseToken, feedRange: rangeOf(lease), reason });
    this.track(supervisor.run().then((why) => this.onClosed(supervisor, why)));
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch((err: unknown) => this.options.logger.error('lease close handling failed', { error: messageOf(err) }));
    this.closing.add(tracked);
    void tracked.finally(() => this.closing.delete(tracked));
  }

  private async onClosed(supervisor: LeaseSupervisor<T>, why: CloseReason): Promise<void> {
    if (this.supervisors.get(supervisor.leaseToken) === supervisor) this.supervisors.delete(supervisor.leaseToken);
    if (why.kind !== 'split') return;
    const store = this.requireStore();
    const parent = supervisor.owned.lease;
    const atLimit = this.supervisors.size + why.split.children.length > this.options.maxLeasesPerInstance;
    try {
      const children = await replaceSplitLease({
        store,
        parent,
        children: why.split.children,
        childOwner: this.stopping || atLimit ? null : this.options.instanceName,
        nowMs: this.options.clock.now(),
        emit: this.emit,
      });
      for (const child of children) if (child.Owner === this.options.instanceName) this.startLease(child, 'split');
    } catch (err) {
      this.emit({
        type: 'changefeed.error',
        leaseToken: parent.LeaseToken,
        error: engineError('replace split lease', err, { leaseToken: parent.LeaseToken }),
      });
      // Give the parent up: whoever takes it re-reads from its checkpoint and retries the split.
      await supervisor.owned.release().catch(() => undefined);
    }
  }
}

async function checkLeaseContainer(leaseContainer: Container): Promise<LeaseKeyPath> {
  let definition;
  try {
    ({ resource: definition } = await leaseContainer.read());
  } catch (err) {
    throw new ChangeFeedConfigurationError(
      `cannot read lease container ${leaseContainer.id}: ${messageOf(err)}; create it with partitionKey { paths: ['/id'] } and defaultTtl: -1`,
      err,
    );
  }
  const paths = definition?.partitionKey?.paths ?? [];
  if (paths.length !== 1 || (paths[0] !== '/id' && paths[0] !== '/partitionKey')) {
    throw new ChangeFeedConfigurationError(
      `lease container ${leaseContainer.id} is partitioned on ${JSON.stringify(paths)}; leases need partitionKey { paths: ['/id'] } or { paths: ['/partitionKey'] } (create a new container for them)`,
    );
  }
  if (definition?.defaultTtl === undefined || definition.defaultTtl === null) {
    throw new ChangeFeedConfigurationError(
      `lease container ${leaseContainer.id} has TTL off; the bootstrap lock expires by TTL, so turn it on without a default: container.replace({ ...definition, defaultTtl: -1 })`,
    );
  }
  return paths[0] as LeaseKeyPath;
}

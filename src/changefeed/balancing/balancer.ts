import { sleep } from '../util/backoff';
import { LeaseLostError, engineError } from '../errors';
import type { Emit } from '../events';
import { isExpired, leaseTimestampMs, type LeaseDocument } from '../lease/lease-document';
import type { LeaseStore } from '../lease/lease-store';
import type { ResolvedOptions } from '../options';
import type { AcquireReason } from './strategy';
import { decideAcquisitions } from './strategy';

export interface BalancerDeps {
  store: LeaseStore;
  options: ResolvedOptions;
  emit: Emit;
  /** Lease tokens this instance runs readers for. */
  running(): ReadonlySet<string>;
  /** Starts the reader of a freshly acquired lease. */
  start(lease: LeaseDocument, reason: AcquireReason): void;
  /** Stops a running lease that the listing shows owned by someone else, or no longer there. */
  lose(leaseToken: string, newOwner: string | null, gone: boolean): void;
}

/**
 * The balancing loop, kept thin: every `leaseAcquireIntervalMs` (less up to 20 % of jitter, so
 * instances do not move in lockstep and a lease left by a dead instance is taken within its
 * expiry plus one interval) read all leases once, stop readers whose lease is now someone else's, then
 * acquire what the strategy decides (in parallel; a 412 means another instance was faster, and the
 * next cycle decides again).
 */
/** Past a lease's expiry before looking: the owner's clock and ours need not agree to the millisecond. */
const EXPIRY_MARGIN_MS = 20;
/** First pause after a failed listing or acquisition; doubles while failures go on, up to the interval. */
const QUICK_RETRY_MS = 50;

/** What one cycle found: when the next foreign lease expires, and whether a Cosmos call failed. */
export interface CycleResult {
  nextExpiryMs: number | undefined;
  /** The listing or an acquisition failed (a 503, a timeout): look again soon, not an interval later. */
  failed: boolean;
  /** The cycle took its limit of unowned or expired leases and more are there for this instance's share: list again now. */
  moreAvailable?: boolean;
  /** A full listing found nothing to do (see `BalanceDecision.settled`): the fleet's size and the owner to watch. */
  settled?: Settled;
  /** A watch cycle took over leases of the watched owner. */
  tookOver?: boolean;
  /** A watch cycle saw leases nobody holds (released by an instance that stopped): a full cycle shares them out now. */
  unowned?: boolean;
}

/**
 * How long to pause before the next cycle: until another owner's lease runs out or one interval,
 * whichever comes first — and, after failures, only 50, 100, 200 ms … (never past the interval), so
 * that one refused write does not add a whole interval to a takeover.
 */
export function pauseBeforeNextCycle(
  intervalMs: number,
  untilExpiryMs: number,
  consecutiveFailures: number,
  moreAvailable = false,
): number {
  const pause = Math.min(intervalMs, untilExpiryMs);
  if (consecutiveFailures > 0) return Math.min(pause, QUICK_RETRY_MS * 2 ** (consecutiveFailures - 1));
  return moreAvailable ? 0 : pause;
}

/**
 * What a full listing that found nothing to do leaves the next cycles: the fleet's size, the owner to
 * watch, and — when this instance was alone and ran every lease listed — how many it ran.
 */
export interface Settled {
  workers: number;
  watch: string | undefined;
  alone?: number;
}

/**
 * Whether the next cycle must list every lease. Settled in a fleet: once every `workers` intervals
 * (the watched owner's leases in between). Alone with every lease: only when it lost one (another
 * instance took it: a renewal found the lease changed) or once a lease expiry has passed. Leases
 * become free only when another instance stops or dies, and one that holds none cannot; a newcomer
 * takes its share itself, and this instance learns of it at the renewal that fails.
 */
export function fullListingDue(settled: Settled | undefined, sinceFullMs: number, running: number, options: ResolvedOptions): boolean {
  if (!settled) return true;
  if (settled.watch !== undefined) return sinceFullMs >= options.leaseAcquireIntervalMs * settled.workers;
  if (settled.alone === undefined) return true;
  return running < settled.alone || sinceFullMs >= options.leaseExpirationMs;
}

export class Balancer {
  /** The leases as the last cycle listed them. */
  private lastListing: LeaseDocument[] | undefined;

  constructor(private readonly deps: BalancerDeps) {}

  async run(signal: AbortSignal): Promise<void> {
    let expiring: LeaseDocument[] | undefined;
    let failures = 0;
    /** Set while the last full listing found nothing to do: the fleet's size and the owner watched. */
    let settled: Settled | undefined;
    let lastFullMs = -Infinity;
    let cycles = 0;
    while (!signal.aborted) {
      cycles++;
      const { leaseAcquireIntervalMs, clock, random } = this.deps.options;
      // Settled, an instance lists every lease once every `workers` intervals, so the fleet lists
      // about once an interval between them (its cost follows the ranges, not ranges × instances);
      // in between it reads only the leases of the owner it watches, and alone nothing.
      const fullDue = fullListingDue(settled, clock.now() - lastFullMs, this.deps.running().size, this.deps.options);
      let result: CycleResult;
      if (fullDue) {
        // Woken by an expiry: act on the listing already read (If-Match on each acquisition refuses a
        // lease that changed since, e.g. renewed after all) before listing again — one round trip less.
        const early = expiring ? (await this.acquireFrom(expiring)).acquired : true;
        lastFullMs = clock.now();
        result = await this.cycle();
        if (!early) result = { ...result, failed: true };
        settled = result.settled;
      } else if (settled?.watch === undefined) {
        result = { nextExpiryMs: undefined, failed: false };
      } else {
        result = await this.watchCycle(settled.watch);
        // A failed read or a lease nobody holds: list everything next time. After a takeover keep
        // watching: the dead owner's other leases expire at their own times (up to a renewal
        // interval apart), and the watcher wakes at each to take it; the full listings that follow
        // (every `workers` intervals) spread what it took.
        if (result.failed || result.unowned) settled = undefined;
      }
      failures = result.failed ? failures + 1 : 0;
      const intervalMs = Math.round(leaseAcquireIntervalMs * (1 - random() * 0.2));
      // Wake when another owner's lease runs out, not up to an interval later: takeover after a crash
      // then takes the lease's expiry plus one cycle.
      const { nextExpiryMs } = result;
      const untilExpiryMs = nextExpiryMs === undefined ? Infinity : Math.max(10, nextExpiryMs - clock.now() + EXPIRY_MARGIN_MS);
      expiring = fullDue && !settled && untilExpiryMs < intervalMs ? this.lastListing : undefined;
      try {
        // Not straight after the first cycle: instances started together must see each other's leases
        // before one of them, alone in its first listing, takes every lease at once.
        const quick = result.moreAvailable === true && cycles > 1;
        await sleep(pauseBeforeNextCycle(intervalMs, untilExpiryMs, failures, quick), signal);
      } catch {
        return;
      }
    }
  }

  /**
   * Between full listings of a settled fleet: reads the watched owner's leases (and any nobody
   * holds) only. Any of the owner's expired means it stopped renewing (a crash): this instance takes
   * them all, beyond its share (up to `leasesAcquiredPerCycle` a cycle and `maxLeasesPerInstance`), so
   * every range is read again within the expiry; the full listings that follow spread them across the
   * fleet. Leases nobody holds (an instance stopped and released them) call for a full cycle at once,
   * which shares them out as the strategy does.
   */
  async watchCycle(owner: string): Promise<CycleResult> {
    const { store, options, emit } = this.deps;
    let leases: LeaseDocument[];
    try {
      leases = await store.listWatched(owner);
    } catch (err) {
      emit({ type: 'changefeed.error', error: engineError('list leases of the watched owner', err) });
      return { nextExpiryMs: undefined, failed: true };
    }
    if (leases.some((l) => !l.Owner)) return { nextExpiryMs: undefined, failed: false, unowned: true, moreAvailable: true };
    const now = options.clock.now();
    const expired = leases.filter((l) => isExpired(l, now, options.leaseExpirationMs));
    const live = leases.filter((l) => !isExpired(l, now, options.leaseExpirationMs));
    const nextExpiryMs = live.length ? Math.min(...live.map((l) => leaseTimestampMs(l) + options.leaseExpirationMs)) : undefined;
    if (expired.length === 0) return { nextExpiryMs, failed: false };
    const room = Math.max(0, options.maxLeasesPerInstance - this.deps.running().size);
    const take = expired.slice(0, Math.min(room, options.leasesAcquiredPerCycle));
    const acquired = await this.acquireAll(take.map((lease) => ({ lease, reason: 'expired' as const })));
    return { nextExpiryMs, failed: !acquired, tookOver: true, moreAvailable: take.length < Math.min(expired.length, room) };
  }

  /**
   * One balancing cycle; never throws (errors are reported as events). Returns when the earliest
   * lease held by another instance will expire unless renewed (undefined: none), and whether a
   * Cosmos call failed.
   */
  async cycle(): Promise<CycleResult> {
    const { store, options, emit } = this.deps;
    // Snapshot before listing: a lease started meanwhile (a split child) is not in the listing yet.
    const runningBefore = new Set(this.deps.running());
    let leases: LeaseDocument[];
    try {
      leases = await store.list();
    } catch (err) {
      emit({ type: 'changefeed.error', error: engineError('list leases', err) });
      return { nextExpiryMs: undefined, failed: true };
    }
    this.lastListing = leases;
    const byToken = new Map(leases.map((l) => [l.LeaseToken, l]));
    for (const token of runningBefore) {
      const listed = byToken.get(token);
      if (!listed) this.deps.lose(token, null, true);
      else if (listed.Owner !== options.instanceName) this.deps.lose(token, listed.Owner, false);
    }
    const now = options.clock.now();
    let nextExpiryMs: number | undefined;
    for (const l of leases) {
      if (!l.Owner || l.Owner === options.instanceName) continue;
      const at = leaseTimestampMs(l) + options.leaseExpirationMs;
      if (at > now && (nextExpiryMs === undefined || at < nextExpiryMs)) nextExpiryMs = at;
    }
    const { acquired, moreAvailable, settled } = await this.acquireFrom(leases);
    const running = this.deps.running();
    if (settled && settled.workers === 1 && leases.length > 0 && leases.every((l) => running.has(l.LeaseToken)))
      settled.alone = running.size;
    return { nextExpiryMs, failed: !acquired, ...(moreAvailable ? { moreAvailable } : {}), ...(settled ? { settled } : {}) };
  }

  /**
   * Decides on `leases` (as listed) and acquires what the strategy picks; a lost race is ignored.
   * `acquired` false when an acquisition failed otherwise (the next cycle should come soon).
   */
  private async acquireFrom(leases: LeaseDocument[]): Promise<{ acquired: boolean; moreAvailable: boolean; settled?: Settled }> {
    const { options } = this.deps;
    const decision = decideAcquisitions({
      leases,
      self: options.instanceName,
      running: this.deps.running(),
      nowMs: options.clock.now(),
      leaseExpirationMs: options.leaseExpirationMs,
      maxLeasesPerInstance: options.maxLeasesPerInstance,
      leasesAcquiredPerCycle: options.leasesAcquiredPerCycle,
      random: options.random,
    });
    return {
      acquired: await this.acquireAll(decision.acquire),
      moreAvailable: decision.moreAvailable,
      ...(decision.settled ? { settled: { workers: decision.workers, watch: decision.watch } } : {}),
    };
  }

  /** Acquires in parallel and starts each reader; a lost race is ignored. False when an acquisition failed otherwise. */
  private async acquireAll(picks: ReadonlyArray<{ lease: LeaseDocument; reason: AcquireReason }>): Promise<boolean> {
    const { store, options, emit } = this.deps;
    const results = await Promise.all(
      picks.map(async ({ lease, reason }) => {
        try {
          const acquired = await store.acquire(lease, options.instanceName, options.leaseProperties());
          this.deps.start(acquired, reason);
          return true;
        } catch (err) {
          if (err instanceof LeaseLostError) return true;
          emit({
            type: 'changefeed.error',
            leaseToken: lease.LeaseToken,
            error: engineError('acquire lease', err, { leaseToken: lease.LeaseToken }),
          });
          return false;
        }
      }),
    );
    return results.every(Boolean);
  }
}

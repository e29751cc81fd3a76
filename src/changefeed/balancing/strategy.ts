import type { LeaseDocument } from '../lease/lease-document';
import { isExpired } from '../lease/lease-document';
import { handedOverRecentlyBy } from '../lease/hand-over';

/**
 * The balancing decision as a pure function over one read of all leases (equal-partitions
 * strategy of the .NET processor, with Java's random pick and several acquisitions per cycle):
 *
 * - workers = live owners (owner set, lease not expired) + self; target = ceil(leases / workers),
 *   capped by `maxLeasesPerInstance`; need = target − leases this instance runs.
 * - First take available leases: ours from an earlier life (Owner = self but not running here),
 *   then unowned or expired ones, picked at random so instances starting together collide less.
 * - With nothing available, steal from the busiest owner, one lease at a time re-evaluated after
 *   each pick, only while that owner holds more than target — or exactly target while we still
 *   need more than one (4 leases over 3 instances must end 2/1/1, not 2/2/0).
 * - A lease handed over on request (`lease/hand-over.ts`) is, for one lease expiry, neither taken
 *   nor stolen back by the instance that handed it over, and taken by any other even past target
 *   (the next cycles steal another lease back to even the count).
 * - At most `leasesAcquiredPerCycle` acquisitions per cycle. When that stops it short of its share
 *   while available leases remain, the decision says so (`moreAvailable`): the balancer then lists
 *   again at once instead of an interval later (from its second cycle on), so a lone instance owns
 *   256 ranges in seconds, not in 32 intervals, while each cycle's burst of lease writes stays bounded.
 */

export type AcquireReason = 'own' | 'unowned' | 'expired' | 'steal';

interface Acquisition {
  lease: LeaseDocument;
  reason: AcquireReason;
}

export interface BalanceInput {
  leases: readonly LeaseDocument[];
  self: string;
  /** Lease tokens this instance currently runs readers for. */
  running: ReadonlySet<string>;
  nowMs: number;
  leaseExpirationMs: number;
  maxLeasesPerInstance: number;
  leasesAcquiredPerCycle: number;
  random: () => number;
}

export interface BalanceDecision {
  acquire: Acquisition[];
  target: number;
  workers: number;
  /** The per-cycle limit, not the share, stopped the taking of unowned or expired leases: more are there to take. */
  moreAvailable: boolean;
  /**
   * Nothing for this instance to do: no lease to take, none available, none to steal. The balancer
   * then spaces its full listings by the fleet's size and watches only `watch`.
   */
  settled: boolean;
  /**
   * The live owner this instance watches for a takeover: the one before it in the ring of live
   * owners sorted by name (undefined when alone). Every owner is watched by exactly one other.
   */
  watch?: string;
}

/** The owner before `self` in the ring of `owners` (self included) sorted by name; undefined when alone. */
export function predecessorOf(owners: Iterable<string>, self: string): string | undefined {
  const ring = [...new Set([...owners, self])].sort();
  if (ring.length < 2) return undefined;
  const i = ring.indexOf(self);
  return ring[(i - 1 + ring.length) % ring.length];
}

export function decideAcquisitions(input: BalanceInput): BalanceDecision {
  const { leases, self, running, nowMs, leaseExpirationMs } = input;
  const counts = new Map<string, number>([[self, 0]]);
  const own: LeaseDocument[] = [];
  const available: Array<{ lease: LeaseDocument; reason: AcquireReason }> = [];
  /** Unowned leases another instance handed over on request: taken even past target (balancing evens it out later). */
  const handedOver: LeaseDocument[] = [];

  for (const lease of leases) {
    if (running.has(lease.LeaseToken)) {
      counts.set(self, (counts.get(self) ?? 0) + 1);
    } else if (lease.Owner === self) {
      own.push(lease);
    } else if (!lease.Owner) {
      if (handedOverRecentlyBy(lease, self, nowMs, leaseExpirationMs)) continue;
      if (handedOverRecentlyBy(lease, undefined, nowMs, leaseExpirationMs)) handedOver.push(lease);
      else available.push({ lease, reason: 'unowned' });
    } else if (isExpired(lease, nowMs, leaseExpirationMs)) {
      available.push({ lease, reason: 'expired' });
    } else {
      counts.set(lease.Owner, (counts.get(lease.Owner) ?? 0) + 1);
    }
  }

  const workers = counts.size;
  const watch = predecessorOf(counts.keys(), self);
  const quiet = { watch, settled: false, moreAvailable: false };
  const target = Math.min(input.maxLeasesPerInstance, Math.ceil(leases.length / workers));
  let mine = counts.get(self) ?? 0;
  const acquire: Acquisition[] = [];
  for (const lease of handedOver) {
    if (acquire.length >= input.leasesAcquiredPerCycle || mine >= input.maxLeasesPerInstance) break;
    acquire.push({ lease, reason: 'unowned' });
    mine++;
  }
  let budget = Math.min(input.leasesAcquiredPerCycle - acquire.length, Math.max(0, target - mine));
  if (budget === 0)
    return { acquire, target, workers, ...quiet, settled: acquire.length === 0 && available.length === 0 && own.length === 0 };

  for (const lease of own) {
    if (budget === 0) break;
    acquire.push({ lease, reason: 'own' });
    budget--;
    mine++;
  }
  const picks = shuffle(available, input.random);
  let taken = 0;
  for (const pick of picks) {
    if (budget === 0) break;
    acquire.push(pick);
    budget--;
    mine++;
    taken++;
  }
  const moreAvailable = taken < picks.length && mine < target;
  if (acquire.length > 0) return { acquire, target, workers, ...quiet, moreAvailable };

  const stolen = new Set<string>();
  while (budget > 0) {
    const need = target - mine;
    const busiest = busiestOther(counts, self);
    if (!busiest) break;
    const threshold = need > 1 ? target - 1 : target;
    if (busiest.count <= threshold) break;
    const candidates = leases.filter(
      (l) =>
        l.Owner === busiest.owner &&
        !stolen.has(l.LeaseToken) &&
        !running.has(l.LeaseToken) &&
        !isExpired(l, nowMs, leaseExpirationMs) &&
        !handedOverRecentlyBy(l, self, nowMs, leaseExpirationMs),
    );
    if (candidates.length === 0) break;
    const lease = candidates[Math.floor(input.random() * candidates.length) % candidates.length];
    stolen.add(lease.LeaseToken);
    acquire.push({ lease, reason: 'steal' });
    counts.set(busiest.owner, busiest.count - 1);
    mine++;
    budget--;
  }
  return { acquire, target, workers, ...quiet, settled: acquire.length === 0 };
}

/** The owner (other than self) with the most live leases; ties broken by name for determinism. */
function busiestOther(counts: ReadonlyMap<string, number>, self: string): { owner: string; count: number } | undefined {
  let best: { owner: string; count: number } | undefined;
  for (const [owner, count] of counts) {
    if (owner === self) continue;
    if (!best || count > best.count || (count === best.count && owner < best.owner)) best = { owner, count };
  }
  return best;
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1)) % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

import { decideAcquisitions, predecessorOf, type BalanceInput } from '../../../src/changefeed/balancing/strategy';
import { createLeaseDocument, type LeaseDocument } from '../../../src/changefeed/lease/lease-document';
import { ManualClock } from '../../../src/changefeed/util/clock';

const EXPIRY = 30_000;
const clock = new ManualClock(1_000_000);
const BOUNDS = ['', '10', '20', '30', '40', '50', '60', '70', '80', 'FF'];

/** `leases('A','A',null,'B')` → lease i covers [BOUNDS[i], BOUNDS[i+1]) owned as given, fresh. */
function leases(...owners: Array<string | null | { owner: string; ageMs: number }>): LeaseDocument[] {
  return owners.map((o, i) => {
    const owner = o === null ? null : typeof o === 'string' ? o : o.owner;
    const ageMs = o !== null && typeof o === 'object' ? o.ageMs : 0;
    return createLeaseDocument({
      prefix: 'p',
      range: { min: BOUNDS[i], max: BOUNDS[i + 1] },
      continuationToken: null,
      owner,
      nowMs: clock.now() - ageMs,
    });
  });
}

function decide(all: LeaseDocument[], self: string, extra: Partial<BalanceInput> = {}) {
  const running = new Set(all.filter((l) => l.Owner === self).map((l) => l.LeaseToken));
  return decideAcquisitions({
    leases: all,
    self,
    running,
    nowMs: clock.now(),
    leaseExpirationMs: EXPIRY,
    maxLeasesPerInstance: Infinity,
    leasesAcquiredPerCycle: Infinity,
    random: () => 0.5,
    ...extra,
  });
}

const owners = (all: LeaseDocument[]): Record<string, number> =>
  all.reduce<Record<string, number>>((acc, l) => ({ ...acc, [l.Owner ?? 'none']: (acc[l.Owner ?? 'none'] ?? 0) + 1 }), {});

/** Runs balancing cycles for the instances in turn over one shared list until nothing changes. */
function simulate(all: LeaseDocument[], instances: string[], maxRounds = 10): { rounds: number; leases: LeaseDocument[] } {
  let current = all.map((l) => ({ ...l }));
  for (let round = 1; round <= maxRounds; round++) {
    let changed = false;
    for (const self of instances) {
      for (const { lease } of decide(current, self).acquire) {
        current = current.map((l) => (l.id === lease.id ? { ...l, Owner: self, timestamp: new Date(clock.now()).toISOString() } : l));
        changed = true;
      }
    }
    if (!changed) return { rounds: round, leases: current };
  }
  throw new Error(`no convergence in ${maxRounds} rounds: ${JSON.stringify(owners(current))}`);
}

describe('balancing strategy (equal partitions)', () => {
  it('a lone instance takes every unowned lease', () => {
    const d = decide(leases(null, null, null, null), 'A');
    expect(d.acquire.map((a) => a.reason)).toEqual(['unowned', 'unowned', 'unowned', 'unowned']);
    expect(d.target).toBe(4);
  });

  it('takes at most leasesAcquiredPerCycle per cycle', () => {
    expect(decide(leases(null, null, null, null), 'A', { leasesAcquiredPerCycle: 2 }).acquire).toHaveLength(2);
  });

  it('says when the per-cycle limit, not the share, left available leases behind (the balancer lists again at once)', () => {
    expect(decide(leases(null, null, null, null), 'A', { leasesAcquiredPerCycle: 2 }).moreAvailable).toBe(true);
    expect(decide(leases(null, null, null, null), 'A', { leasesAcquiredPerCycle: 4 }).moreAvailable).toBe(false);
    // Two live owners: A's share is 2 of 4, taken within the limit; the other two are B's to take.
    expect(decide(leases(null, null, null, 'B'), 'A', { leasesAcquiredPerCycle: 2 }).moreAvailable).toBe(false);
    // Expired leases count as available; steals never ask for a quick cycle.
    expect(decide(leases({ owner: 'X', ageMs: EXPIRY + 1 }, null, null), 'A', { leasesAcquiredPerCycle: 1 }).moreAvailable).toBe(true);
    expect(decide(leases('B', 'B', 'B', 'B'), 'A', { leasesAcquiredPerCycle: 1 }).moreAvailable).toBe(false);
  });

  it('never goes above maxLeasesPerInstance', () => {
    const d = decide(leases(null, null, null, null), 'A', { maxLeasesPerInstance: 3 });
    expect(d.acquire).toHaveLength(3);
    expect(decide(leases('A', 'A', 'A', null), 'A', { maxLeasesPerInstance: 3 }).acquire).toHaveLength(0);
  });

  it('takes the expired leases of a dead instance; the dead one is not counted as a worker', () => {
    const dead = { owner: 'B', ageMs: EXPIRY + 1 };
    const d = decide(leases('A', 'A', dead, dead), 'A');
    expect(d.workers).toBe(1);
    expect(d.acquire.map((a) => [a.lease.LeaseToken, a.reason])).toEqual(
      expect.arrayContaining([
        ['20-30', 'expired'],
        ['30-40', 'expired'],
      ]),
    );
  });

  it('a lease exactly at its expiration is still live', () => {
    expect(decide(leases('A', 'A', { owner: 'B', ageMs: EXPIRY }, { owner: 'B', ageMs: EXPIRY }), 'A').acquire).toEqual([]);
  });

  it('re-takes its own leases from an earlier life before anything else', () => {
    const all = leases('A', null, null, 'B');
    const d = decideAcquisitions({
      leases: all,
      self: 'A',
      running: new Set(),
      nowMs: clock.now(),
      leaseExpirationMs: EXPIRY,
      maxLeasesPerInstance: Infinity,
      leasesAcquiredPerCycle: 1,
      random: () => 0,
    });
    expect(d.acquire.map((a) => [a.lease.LeaseToken, a.reason])).toEqual([['-10', 'own']]);
  });

  it('picks available leases at random (two instances starting together choose differently)', () => {
    const all = leases(null, null, null, null);
    const first = decide(all, 'A', { leasesAcquiredPerCycle: 1, random: () => 0 }).acquire[0].lease.LeaseToken;
    const last = decide(all, 'B', { leasesAcquiredPerCycle: 1, random: () => 0.99 }).acquire[0].lease.LeaseToken;
    expect(first).not.toBe(last);
  });

  it('does not steal while available leases exist', () => {
    const d = decide(leases('B', 'B', 'B', null), 'A');
    expect(d.acquire.map((a) => a.reason)).toEqual(['unowned']);
  });

  it('a new instance steals from the busiest owner down to an even split (4 → 2/2)', () => {
    const d = decide(leases('B', 'B', 'B', 'B'), 'A');
    expect(d.acquire.map((a) => a.reason)).toEqual(['steal', 'steal']);
    expect(d.acquire.every((a) => a.lease.Owner === 'B')).toBe(true);
  });

  it('steals one at a time from whoever is busiest after each pick', () => {
    const d = decide(leases('B', 'B', 'B', 'C', 'C', 'D'), 'A');
    // 6 leases, 4 workers → target 2; A needs 2: steal from B (3), then B and C hold 2 = target, need 1 → stop
    expect(d.acquire.map((a) => a.lease.Owner)).toEqual(['B']);
  });

  it('with need > 1 it may take from an owner at target (4 over 3 ends 2/1/1, not 2/2/0)', () => {
    const d = decide(leases('B', 'B', 'C', 'C'), 'A');
    expect(d.target).toBe(2);
    expect(d.acquire).toHaveLength(1);
    expect(d.acquire[0].lease.Owner).toBe('B');
  });

  it('does not steal from an owner at target when it needs only one more', () => {
    expect(decide(leases('A', 'B', 'B', 'C', 'C'), 'A').acquire).toEqual([]);
  });

  it('a balanced fleet does nothing', () => {
    const all = leases('A', 'B', 'C', 'A');
    for (const self of ['A', 'B', 'C']) expect(decide(all, self).acquire).toEqual([]);
  });

  it('never steals a lease this instance already runs', () => {
    const all = leases('B', 'B', 'B', 'B');
    const d = decideAcquisitions({
      leases: all,
      self: 'A',
      running: new Set(['-10']),
      nowMs: clock.now(),
      leaseExpirationMs: EXPIRY,
      maxLeasesPerInstance: Infinity,
      leasesAcquiredPerCycle: Infinity,
      random: () => 0,
    });
    expect(d.acquire.map((a) => a.lease.LeaseToken)).not.toContain('-10');
  });

  it.each([
    ['three instances start on 4 unowned leases', [null, null, null, null], ['A', 'B', 'C'], [1, 1, 2]],
    ['a third instance joins a 2/2 fleet', ['A', 'A', 'B', 'B'], ['A', 'B', 'C'], [1, 1, 2]],
    ['two instances join one that holds everything', ['A', 'A', 'A', 'A'], ['A', 'B', 'C'], [1, 1, 2]],
    ['one instance left a 3-instance fleet gracefully', ['A', null, 'C', null], ['A', 'C'], [2, 2]],
    ['one of three died (expired)', ['A', { owner: 'B', ageMs: EXPIRY + 5 }, 'C', 'A'], ['A', 'C'], [2, 2]],
    ['eight leases over three instances', [null, null, null, null, null, null, null, null], ['A', 'B', 'C'], [2, 3, 3]],
    ['five leases, one joins a lone owner', ['A', 'A', 'A', 'A', 'A'], ['A', 'B'], [2, 3]],
  ])('converges evenly within a few cycles: %s', (_name, start, instances, expected) => {
    const { rounds, leases: end } = simulate(leases(...(start as never[])), instances as string[]);
    expect(rounds).toBeLessThanOrEqual(4);
    const counts = (instances as string[]).map((i) => owners(end)[i] ?? 0).sort();
    expect(counts).toEqual(expected);
    expect(owners(end).none).toBeUndefined();
  });
});

describe('balancing strategy: a lease handed over on request', () => {
  /** Lease 0 released by `by` on request `ageMs` ago; the rest owned as given. */
  function handedOver(by: string, ageMs: number, ...rest: string[]): LeaseDocument[] {
    const [first, ...others] = leases(null, ...rest);
    first.properties = { handedOverBy: by, handedOverAt: new Date(clock.now() - ageMs).toISOString() };
    return [first, ...others];
  }

  it('the instance that handed it over does not take it back within one lease expiry', () => {
    expect(decide(handedOver('A', 1_000, 'B', 'B'), 'A').acquire.map((a) => a.lease.LeaseToken)).not.toContain('-10');
  });

  it('another instance takes it at once, even past its fair share', () => {
    const d = decide(handedOver('A', 1_000, 'A', 'B', 'B'), 'B');
    expect(d.target).toBe(2);
    expect(d.acquire.map((a) => a.lease.LeaseToken)).toEqual(['-10']);
  });

  it('the instance that handed it over steals another lease to even the count, not that one', () => {
    const all = handedOver('A', 1_000, 'B', 'B', 'B');
    all[0].Owner = 'B';
    const d = decide(all, 'A');
    expect(d.acquire.length).toBeGreaterThan(0);
    expect(d.acquire.map((a) => a.lease.LeaseToken)).not.toContain('-10');
  });

  it('after one lease expiry it is an unowned lease like any other (a fleet of one takes it back)', () => {
    expect(decide(handedOver('A', EXPIRY + 1, 'A'), 'A').acquire.map((a) => a.lease.LeaseToken)).toEqual(['-10']);
  });
});

describe('a settled fleet: who watches whom', () => {
  it('each live owner is watched by the one after it in the ring sorted by name', () => {
    expect(predecessorOf(['b', 'c'], 'a')).toBe('c');
    expect(predecessorOf(['a', 'c'], 'b')).toBe('a');
    expect(predecessorOf(['a', 'b'], 'c')).toBe('b');
    expect(predecessorOf([], 'a')).toBeUndefined();
    expect(predecessorOf(['a'], 'a')).toBeUndefined();
  });

  it('is settled with nothing to take, available or to steal; not while leases are available or its share is short', () => {
    const balanced = decide(leases('A', 'A', 'B', 'B'), 'A');
    expect(balanced).toMatchObject({ acquire: [], settled: true, watch: 'B', workers: 2 });
    expect(decide(leases('A', 'A', 'B', null), 'A').settled).toBe(false);
    expect(decide(leases('A', 'B', 'B', 'B'), 'A').settled).toBe(false);
    // 2/1/1 over three owners: nobody can do better, everybody is settled.
    expect(decide(leases('A', 'A', 'B', 'C'), 'B').settled).toBe(true);
  });
});

import { Balancer, fullListingDue, pauseBeforeNextCycle } from '../../../src/changefeed/balancing/balancer';
import { createLeaseDocument, type LeaseDocument } from '../../../src/changefeed/lease/lease-document';
import type { LeaseStore } from '../../../src/changefeed/lease/lease-store';
import { resolveOptions, type ChangeFeedProcessorOptions } from '../../../src/changefeed/options';
import { ManualClock } from '../../../src/changefeed/util/clock';

const EXPIRY = 3_000;
const clock = new ManualClock(1_000_000);

function lease(min: string, max: string, owner: string | null, ageMs: number): LeaseDocument {
  return createLeaseDocument({ prefix: 'p', range: { min, max }, continuationToken: null, owner, nowMs: clock.now() - ageMs });
}

/** A balancer over a fixed lease listing; acquisitions are recorded, not written. */
function balancerOver(listing: LeaseDocument[], self = 'me'): { balancer: Balancer; acquired: string[] } {
  const acquired: string[] = [];
  const store = {
    list: async () => listing,
    acquire: async (l: LeaseDocument, owner: string) => ({ ...l, Owner: owner }),
  } as unknown as LeaseStore;
  const options = resolveOptions({
    processorName: 'p',
    instanceName: self,
    clock,
    leaseExpirationMs: EXPIRY,
    leaseRenewIntervalMs: 1_000,
    leaseAcquireIntervalMs: 500,
    random: () => 0.5,
  });
  const balancer = new Balancer({
    store,
    options,
    emit: () => undefined,
    running: () => new Set(),
    start: (l) => acquired.push(l.LeaseToken),
    lose: () => undefined,
  });
  return { balancer, acquired };
}

/** A balancer over `store` (only the calls a test needs) with the test's options; the rest defaults. */
function balancerWith(
  store: Partial<Record<'list' | 'listWatched' | 'acquire', unknown>>,
  options: Partial<ChangeFeedProcessorOptions>,
  hooks: { running?: () => ReadonlySet<string>; start?: (l: LeaseDocument) => void } = {},
): Balancer {
  return new Balancer({
    store: store as unknown as LeaseStore,
    options: resolveOptions({ processorName: 'p', instanceName: 'me', ...options }),
    emit: () => undefined,
    running: hooks.running ?? (() => new Set()),
    start: hooks.start ?? (() => undefined),
    lose: () => undefined,
  });
}

describe("Balancer: waking when another owner's lease runs out", () => {
  it('a cycle reports when the earliest lease held by another instance expires unless renewed', async () => {
    const { balancer } = balancerOver([lease('', '40', 'other', 2_000), lease('40', '80', 'third', 500), lease('80', 'FF', 'me', 2_900)]);
    // Ours is not counted (we renew it); 'other' renewed 2 s ago expires first, 1 s from now.
    await expect(balancer.cycle()).resolves.toEqual({ nextExpiryMs: clock.now() + 1_000, failed: false });
  });

  it('reports nothing when no other instance holds a live lease (expired and unowned ones are taken now)', async () => {
    const { balancer, acquired } = balancerOver([lease('', '80', null, 0), lease('80', 'FF', 'dead', EXPIRY + 1)]);
    await expect(balancer.cycle()).resolves.toEqual({ nextExpiryMs: undefined, failed: false });
    expect(acquired.sort()).toEqual(['-80', '80-FF']);
  });

  it('a cycle held back by leasesAcquiredPerCycle says more are available; the next one takes them', async () => {
    const listing = [lease('', '40', null, 0), lease('40', '80', null, 0), lease('80', 'FF', null, 0)];
    const acquired: string[] = [];
    const store = {
      list: async () => listing.filter((l) => !acquired.includes(l.LeaseToken)),
      acquire: async (l: LeaseDocument, owner: string) => ({ ...l, Owner: owner }),
    } as unknown as LeaseStore;
    const running = new Set<string>();
    const balancer = balancerWith(
      store,
      {
        clock,
        leaseExpirationMs: EXPIRY,
        leaseRenewIntervalMs: 1_000,
        leaseAcquireIntervalMs: 500,
        leasesAcquiredPerCycle: 2,
        random: () => 0.5,
      },
      {
        running: () => running,
        start: (l) => {
          acquired.push(l.LeaseToken);
          running.add(l.LeaseToken);
        },
      },
    );
    await expect(balancer.cycle()).resolves.toEqual({ nextExpiryMs: undefined, failed: false, moreAvailable: true });
    await expect(balancer.cycle()).resolves.toEqual({ nextExpiryMs: undefined, failed: false });
    expect(acquired.sort()).toEqual(['-40', '40-80', '80-FF']);
  });

  it('a failed listing or acquisition is reported, so the next cycle comes soon', async () => {
    const failing = { list: async () => Promise.reject(Object.assign(new Error('503'), { code: 503 })) } as unknown as LeaseStore;
    const options = resolveOptions({
      processorName: 'p',
      instanceName: 'me',
      clock,
      leaseExpirationMs: EXPIRY,
      leaseRenewIntervalMs: 1_000,
      leaseAcquireIntervalMs: 500,
    });
    const listing = new Balancer({
      store: failing,
      options,
      emit: () => undefined,
      running: () => new Set(),
      start: () => undefined,
      lose: () => undefined,
    });
    await expect(listing.cycle()).resolves.toEqual({ nextExpiryMs: undefined, failed: true });

    const refusing = {
      list: async () => [lease('', 'FF', 'dead', EXPIRY + 1)],
      acquire: async () => Promise.reject(Object.assign(new Error('503'), { code: 503 })),
    } as unknown as LeaseStore;
    const acquiring = new Balancer({
      store: refusing,
      options,
      emit: () => undefined,
      running: () => new Set(),
      start: () => undefined,
      lose: () => undefined,
    });
    await expect(acquiring.cycle()).resolves.toEqual({ nextExpiryMs: undefined, failed: true });
  });
});

describe('Balancer: the pause between cycles', () => {
  it("is one interval, or less when another owner's lease runs out sooner", () => {
    expect(pauseBeforeNextCycle(500, Infinity, 0)).toBe(500);
    expect(pauseBeforeNextCycle(500, 120, 0)).toBe(120);
  });

  it('none after a cycle that took its limit of available leases with more left for its share', () => {
    expect(pauseBeforeNextCycle(500, Infinity, 0, true)).toBe(0);
    // A failure still backs off: listing again at once would only fail again.
    expect(pauseBeforeNextCycle(500, Infinity, 1, true)).toBe(50);
  });

  it('after failures: 50, 100, 200 ms …, never more than the interval (a refused acquisition must not add an interval to a takeover)', () => {
    expect([1, 2, 3, 4, 5].map((n) => pauseBeforeNextCycle(500, Infinity, n))).toEqual([50, 100, 200, 400, 500]);
    expect(pauseBeforeNextCycle(500, 30, 2)).toBe(30);
  });
});

describe('Balancer: a settled fleet lists once an interval between its instances', () => {
  it("a watch cycle takes every expired lease of the watched owner, beyond this instance's share", async () => {
    const acquired: string[] = [];
    const store = {
      listWatched: async (owner: string) =>
        owner === 'dead'
          ? [lease('', '40', 'dead', EXPIRY + 1), lease('40', '80', 'dead', EXPIRY + 1), lease('80', 'FF', 'dead', 100)]
          : [],
      acquire: async (l: LeaseDocument, owner: string) => ({ ...l, Owner: owner }),
    } as unknown as LeaseStore;
    const balancer = balancerWith(
      store,
      { clock, leaseExpirationMs: EXPIRY, leaseRenewIntervalMs: 1_000 },
      { running: () => new Set(['a', 'b', 'c']), start: (l) => acquired.push(l.LeaseToken) },
    );
    await expect(balancer.watchCycle('dead')).resolves.toEqual({
      // The one it renewed 100 ms ago runs out next: the balancer wakes then.
      nextExpiryMs: clock.now() - 100 + EXPIRY,
      failed: false,
      tookOver: true,
      moreAvailable: false,
    });
    expect(acquired.sort()).toEqual(['-40', '40-80']);
    await expect(balancer.watchCycle('alive')).resolves.toEqual({ nextExpiryMs: undefined, failed: false });
  });

  it('a watch cycle that sees a lease nobody holds asks for a full cycle at once', async () => {
    const store = { listWatched: async () => [lease('', '80', null, 0)] } as unknown as LeaseStore;
    const balancer = balancerWith(store, { clock, leaseExpirationMs: EXPIRY, leaseRenewIntervalMs: 1_000 });
    await expect(balancer.watchCycle('other')).resolves.toEqual({
      nextExpiryMs: undefined,
      failed: false,
      unowned: true,
      moreAvailable: true,
    });
  });

  it('settled among 4 owners: one full listing every 4 intervals, the watched owner read in between', async () => {
    const calls = { list: 0, watch: [] as string[] };
    const fresh = (owner: string, min: string, max: string): LeaseDocument =>
      createLeaseDocument({ prefix: 'p', range: { min, max }, continuationToken: null, owner, nowMs: Date.now() });
    const store = {
      list: async () => {
        calls.list++;
        return [fresh('a', '', '40'), fresh('b', '40', '80'), fresh('c', '80', 'C0'), fresh('d', 'C0', 'FF')];
      },
      listWatched: async (owner: string) => {
        calls.watch.push(owner);
        return [fresh(owner, '', '40')];
      },
    } as unknown as LeaseStore;
    const balancer = balancerWith(
      store,
      { instanceName: 'b', leaseExpirationMs: 60_000, leaseRenewIntervalMs: 20_000, leaseAcquireIntervalMs: 20 },
      { running: () => new Set(['40-80']) },
    );
    const stop = new AbortController();
    const running = balancer.run(stop.signal);
    const deadline = Date.now() + 10_000;
    while (calls.list < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    stop.abort();
    await running;
    expect(calls.list).toBeGreaterThanOrEqual(4);
    // b watches a (the owner before it); about three watch reads per full listing, never fewer than two.
    expect(new Set(calls.watch)).toEqual(new Set(['a']));
    expect(calls.watch.length).toBeGreaterThanOrEqual(2 * (calls.list - 1));
  });
});

describe('Balancer: an instance alone with every lease', () => {
  const options = resolveOptions({ processorName: 'p', leaseAcquireIntervalMs: 5_000, leaseExpirationMs: 30_000 });

  it.each([
    ['not settled', true, undefined, 0, 4],
    ['settled among 4, 3 intervals after its listing', false, { workers: 4, watch: 'a' }, 15_000, 1],
    ['settled among 4, 4 intervals after its listing', true, { workers: 4, watch: 'a' }, 20_000, 1],
    ['alone but not running every lease listed', true, { workers: 1, watch: undefined }, 5_000, 4],
    ['alone with all 4 leases, 29 s after its listing', false, { workers: 1, watch: undefined, alone: 4 }, 29_000, 4],
    ['alone with all 4 leases, a lease expiry after its listing', true, { workers: 1, watch: undefined, alone: 4 }, 30_000, 4],
    ['alone, then one lease lost (another instance took it)', true, { workers: 1, watch: undefined, alone: 4 }, 5_000, 3],
  ] as const)('%s: full listing due %s', (_what, due, settled, sinceFullMs, running) => {
    expect(fullListingDue(settled && { ...settled }, sinceFullMs, running, options)).toBe(due);
  });

  it('lists once while it runs every lease, and again at the next cycle after losing one', async () => {
    let lists = 0;
    let cycles = 0;
    const fresh = (min: string, max: string): LeaseDocument =>
      createLeaseDocument({ prefix: 'p', range: { min, max }, continuationToken: null, owner: 'me', nowMs: Date.now() });
    const running = new Set(['-40', '40-80', '80-FF']);
    const store = {
      list: async () => {
        lists++;
        return [fresh('', '40'), fresh('40', '80'), fresh('80', 'FF')].filter((l) => running.has(l.LeaseToken));
      },
    } as unknown as LeaseStore;
    const balancer = balancerWith(
      store,
      { leaseExpirationMs: 60_000, leaseRenewIntervalMs: 20_000, leaseAcquireIntervalMs: 10 },
      {
        running: () => {
          cycles++;
          return running;
        },
      },
    );
    const stop = new AbortController();
    const loop = balancer.run(stop.signal);
    const until = async (condition: () => boolean): Promise<void> => {
      const deadline = Date.now() + 10_000;
      while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    };
    try {
      await until(() => cycles >= 20);
      expect([lists, cycles >= 20]).toEqual([1, true]);
      running.delete('80-FF');
      await until(() => lists === 2);
      expect(lists).toBe(2);
    } finally {
      stop.abort();
      await loop;
    }
  });
});

describe('Balancer: quick cycles for free leases', () => {
  it('wait one interval after the first cycle (peers started together see each other), then take the rest at once', async () => {
    const all = [lease('', '40', null, 0), lease('40', '80', null, 0), lease('80', 'FF', null, 0)];
    const taken = new Set<string>();
    let lists = 0;
    let listsWhenAllTaken = 0;
    const store = {
      list: async () => {
        lists++;
        return all.filter((l) => !taken.has(l.LeaseToken));
      },
      acquire: async (l: LeaseDocument, owner: string) => ({ ...l, Owner: owner }),
    } as unknown as LeaseStore;
    const balancer = balancerWith(
      store,
      { leaseExpirationMs: 60_000, leaseRenewIntervalMs: 20_000, leaseAcquireIntervalMs: 2_000, leasesAcquiredPerCycle: 1 },
      {
        running: () => taken,
        start: (l) => {
          taken.add(l.LeaseToken);
          if (taken.size === 3) listsWhenAllTaken = lists;
        },
      },
    );
    const stop = new AbortController();
    const running = balancer.run(stop.signal);
    try {
      while (taken.size < 1) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 500));
      // Still the first cycle's one lease: the second cycle comes an interval (1.6–2 s) later.
      expect([lists, taken.size]).toEqual([1, 1]);
      const deadline = Date.now() + 15_000;
      while (taken.size < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      // Then one lease a cycle, without a pause between: three listings in all.
      expect([listsWhenAllTaken, taken.size]).toEqual([3, 3]);
    } finally {
      stop.abort();
      await running;
    }
  });
});

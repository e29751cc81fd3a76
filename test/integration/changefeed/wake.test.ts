import { filter, firstValueFrom, toArray, takeUntil, Subject } from 'rxjs';
import { createChangeFeedProcessor, type ChangeFeedEvent, type ChangeFeedProcessor } from '@opstream/changefeed';
import type { LeaseState } from '../../../src/changefeed/processor';
import { effectivePartitionKey, rangeContains } from '../../../src/changefeed/util/epk';
import { effectivePartitionKeyV1 } from '../../../src/changefeed/util/epk-v1';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, useTestbed, type Doc } from './harness';

/** An idle ceiling no test waits out: a document read before it ends was read because of a wake. */
const LONG_IDLE = { maxPollDelayMs: 60_000, pollDelayRampSteps: 0, activeWindowMs: 0 };

/** A partition key whose effective partition key (hash v2 unless told) falls in `range`. */
function keyIn(range: { min: string; max: string }, tag: string, epk: (pk: string) => string = effectivePartitionKey): string {
  for (let i = 0; ; i++) {
    const pk = `${tag}-${i}`;
    if (rangeContains(range, epk(pk))) return pk;
  }
}

describe('waking the range that owns a partition key', () => {
  const tb = useTestbed();

  function start(deliveries: Deliveries, options: Partial<typeof FAST> & { maxLeasesPerInstance?: number } = {}): ChangeFeedProcessor {
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: tb.c.feed, leaseContainer: tb.c.leases, handler: deliveries.handler },
      { ...FAST, ...LONG_IDLE, processorName: uniqueName('p'), startFrom: 'now', ...options },
    );
    tb.processors.push(p);
    return p;
  }

  /** Every lease this instance owns is in an idle pause that ends later than `aheadMs` from now. */
  async function idleLeases(p: ChangeFeedProcessor, aheadMs: number): Promise<LeaseState[]> {
    return waitFor(
      async () => {
        const owned = (await p.getCurrentState({ estimateLag: false })).leases.filter((l) => l.ownedByThisInstance);
        return owned.length > 0 && owned.every((l) => (l.idleUntil ?? 0) > Date.now() + aheadMs) ? owned : undefined;
      },
      { describe: () => `every owned lease idle for another ${aheadMs} ms` },
    );
  }

  it('reads the owning range at once while the other ranges keep their pause, and a long pause is no stall', async () => {
    const d = new Deliveries();
    const stallTimeoutMs = 6_000;
    const p = start(d, { stallTimeoutMs });
    const stop = new Subject<void>();
    const released = firstValueFrom(
      p.events$.pipe(
        filter((e: ChangeFeedEvent) => e.type === 'changefeed.lease.released' || e.type === 'changefeed.lease.lost'),
        takeUntil(stop),
        toArray(),
      ),
    );
    await p.start();
    const leases = await idleLeases(p, 30_000);
    expect(leases).toHaveLength(4);
    const [hinted, quiet] = [leases[0], leases[2]];
    const hintedKey = keyIn(hinted.feedRange, 'hinted');
    const quietKey = keyIn(quiet.feedRange, 'quiet');
    await tb.c.feed.items.create<Doc>({ id: 'quiet', partitionKey: quietKey, n: 1 });
    await tb.c.feed.items.create<Doc>({ id: 'hinted', partitionKey: hintedKey, n: 2 });

    expect(p.wakePartitionKey(hintedKey)).toEqual({ woke: true, leaseToken: hinted.leaseToken });
    await waitFor(() => d.hasAll(['hinted']), { describe: () => 'the woken range to deliver its document' });
    // Written before the hinted one, in a range still in its 60 s pause: not read yet.
    expect(d.counts.has('quiet')).toBe(false);
    expect((await idleLeases(p, 20_000)).map((l) => l.leaseToken)).toContain(quiet.leaseToken);

    expect(p.wakePartitionKey(quietKey).woke).toBe(true);
    await waitFor(() => d.hasAll(['quiet']), { describe: () => 'the second woken range to deliver its document' });

    // Past the stall deadline with every reader pausing: no lease is given up as stalled.
    const pausedSince = Date.now();
    await waitFor(() => Date.now() > pausedSince + stallTimeoutMs + 2_000, { timeoutMs: stallTimeoutMs + 10_000 });
    expect(p.ownedLeaseTokens()).toHaveLength(4);
    stop.next();
    expect(await released).toEqual([]);
  });

  it('wakes repeat: each one reads the range again, and wakes in a row read it once more', async () => {
    const d = new Deliveries();
    const p = start(d);
    await p.start();
    const [lease] = await idleLeases(p, 30_000);
    const key = keyIn(lease.feedRange, 'twice');
    // Two wakes in a row: the first ends the pause, the second skips the next one (see wake.test.ts in unit/).
    await tb.c.feed.items.create<Doc>({ id: 'first', partitionKey: key, n: 1 });
    p.wakePartitionKey(key);
    p.wakePartitionKey(key);
    await waitFor(() => d.hasAll(['first']));
    await tb.c.feed.items.create<Doc>({ id: 'second', partitionKey: key, n: 2 });
    p.wakePartitionKey(key);
    await waitFor(() => d.hasAll(['second']), { describe: () => 'a wake after a delivery to read again' });
  });

  it('a key whose range another instance owns (or nobody) wakes nothing here and says so', async () => {
    const d = new Deliveries();
    const p = start(d, { maxLeasesPerInstance: 1 });
    await p.start();
    const [mine] = await idleLeases(p, 30_000);
    const others = (await p.getCurrentState({ estimateLag: false })).leases.filter((l) => !l.ownedByThisInstance);
    expect(others).toHaveLength(3);
    const elsewhere = keyIn(others[0].feedRange, 'elsewhere');
    const result = p.wakePartitionKey(elsewhere);
    expect(result).toEqual({ woke: false, effectivePartitionKey: effectivePartitionKey(elsewhere) });
    // The instance's own range is still pausing: the wake did not touch it.
    expect((await idleLeases(p, 20_000)).map((l) => l.leaseToken)).toEqual([mine.leaseToken]);
  });
});

describe('waking the range that owns a partition key, in a container created without a hash version (v1)', () => {
  const tb = useTestbed({ feedKey: { paths: ['/partitionKey'] } });

  it('hashes the key as the container does: wakes the owning range, and names the v1 EPK of a key it does not own', async () => {
    expect((await tb.c.feed.read()).resource?.partitionKey).toEqual({ paths: ['/partitionKey'], kind: 'Hash' });
    const d = new Deliveries();
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: tb.c.feed, leaseContainer: tb.c.leases, handler: d.handler },
      { ...FAST, ...LONG_IDLE, processorName: uniqueName('p'), startFrom: 'now', maxLeasesPerInstance: 1 },
    );
    tb.processors.push(p);
    expect(p.wakePartitionKey('before-start')).toEqual({ woke: false });
    await p.start();
    const [mine] = await waitFor(
      async () => {
        const owned = (await p.getCurrentState({ estimateLag: false })).leases.filter((l) => l.ownedByThisInstance);
        return owned.length === 1 && (owned[0].idleUntil ?? 0) > Date.now() + 30_000 ? owned : undefined;
      },
      { describe: () => 'the one owned lease idle for another 30 s' },
    );
    // A key the v1 hash puts in this instance's range and the v2 hash would not: only the right hash wakes it.
    let key = '';
    for (let i = 0; !key; i++) {
      const pk = `v1-${i}`;
      if (rangeContains(mine.feedRange, effectivePartitionKeyV1(pk)) && !rangeContains(mine.feedRange, effectivePartitionKey(pk))) key = pk;
    }
    await tb.c.feed.items.create<Doc>({ id: 'v1-hinted', partitionKey: key, n: 1 });
    expect(p.wakePartitionKey(key)).toEqual({ woke: true, leaseToken: mine.leaseToken });
    await waitFor(() => d.hasAll(['v1-hinted']), { describe: () => 'the woken v1 range to deliver its document' });

    const other = (await p.getCurrentState({ estimateLag: false })).leases.find((l) => !l.ownedByThisInstance);
    if (!other) throw new Error('expected leases this instance does not own');
    const elsewhere = keyIn(other.feedRange, 'v1-elsewhere', effectivePartitionKeyV1);
    expect(p.wakePartitionKey(elsewhere)).toEqual({ woke: false, effectivePartitionKey: effectivePartitionKeyV1(elsewhere) });
  });
});

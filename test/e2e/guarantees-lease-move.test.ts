import { randomUUID } from 'crypto';
import type { Opstream } from '../../src/app/opstream-app';
import { effectivePartitionKey, rangeContains } from '../../src/changefeed/util/epk';
import { clustersNamed, drainDelayedCreates, faultById, leaseOwners, leaseRanges, readDocument } from '../helpers/guarantees';
import { Harness, startHarness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/**
 * Guarantee: never two CS clusters for one resource, even when a change-feed lease moves to
 * another instance while the creates of its range are being handled: instance A holds every
 * lease, 8 creates start (two per lease range), and while A's handlers are mid-flight instance B
 * starts and takes leases from A. Counted from outside once every operation is terminal.
 */
describe('guarantees: a lease moving while creates are being handled', () => {
  let h: Harness;
  // Long enough for B to start and take leases on a loaded machine while A's handlers wait; the CS
  // timeout is above it, so a create is answered rather than timed out.
  const LATENCY_MS = 6_000;

  beforeAll(async () => {
    h = await startHarness({ settings: { 'clustersService.timeoutMs': 20_000 } });
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    // The emulator has 4 partitions: one lease each, all held by A.
    await waitFor(
      async () => {
        const leases = await leaseOwners(h);
        return leases.length === 4 && leases.every((l) => l.owner === 'first');
      },
      { timeoutMs: 30_000, describe: () => 'instance A to hold all 4 leases' },
    );
  });
  afterEach(() => {
    h.cs.admin.clearFaults();
    h.cosmos.emu.clearFaults();
  });

  async function moveLeasesMidFlight(where: 'in Clusters Service' | 'before the CS create'): Promise<void> {
    const a = h.instances[0];
    const lost: string[] = [];
    const leaseEvents = a.taps.tap<{ type: string; leaseToken: string }>('leases').subscribe((e) => {
      if (e.data.type === 'changefeed.lease.lost' || e.data.type === 'changefeed.lease.released') lost.push(e.data.leaseToken);
    });
    const tenant = randomUUID();
    // Two subscriptions in each lease's range: whichever lease moves, creates of its range are mid-flight.
    const ranges = await leaseRanges(
      h,
      (await leaseOwners(h)).map((l) => l.token),
    );
    const subs = subscriptionsPerRange(ranges, 2);
    for (const s of subs) await h.frontend.registerSubscription(s, tenant);
    const postsBefore = h.cs.admin.count('POST /clusters');
    const createdBefore = h.cs.admin.count('POST /clusters', 201);
    const delayedBefore = h.cosmos.emu.counters().delayed;
    const slowCreate = h.cs.admin.addFault({ kind: 'latency', endpoint: 'POST /clusters', latencyMs: LATENCY_MS });
    // The handler's first step, reading the subscription's tenant, can be held up too.
    if (where === 'before the CS create')
      h.cosmos.emu.setFaults({ latencyMs: LATENCY_MS, kinds: ['pointRead'], path: '/colls/Subscriptions/docs/' });
    const ops = await Promise.all(subs.map((s, i) => h.frontend.createCluster(s, 'rg-move', `move-${i}`)));

    if (where === 'in Clusters Service') {
      await waitFor(() => (faultById(h, slowCreate.id)?.applied ?? 0) >= ops.length, {
        timeoutMs: 30_000,
        describe: () => 'the 8 creates to reach Clusters Service',
      });
    } else {
      await waitFor(() => h.cosmos.emu.counters().delayed - delayedBefore >= ops.length, {
        timeoutMs: 30_000,
        describe: () => "A's 8 handlers to be reading their tenant",
      });
    }

    let b: Opstream | undefined;
    try {
      b = await h.startInstance('second');
      await waitFor(async () => (await leaseOwners(h)).some((l) => l.owner === 'second') && lost.length > 0, {
        timeoutMs: 30_000,
        describe: () => `B to own a lease and A to notice it lost one (lost: ${lost.join(', ') || 'none'})`,
      });
      // The lease moved while the handlings of its range were still mid-flight.
      const movedRanges = await leaseRanges(h, lost);
      const opsOfMovedRanges = subs.filter((s) => movedRanges.some((r) => rangeContains(r, effectivePartitionKey(s))));
      expect(opsOfMovedRanges.length).toBeGreaterThanOrEqual(2);
      if (where === 'in Clusters Service')
        expect(h.cs.admin.count('POST /clusters') - postsBefore).toBe(0); // none answered yet
      else expect(faultById(h, slowCreate.id)?.applied ?? 0).toBe(0); // none sent yet

      const statuses = await Promise.all(ops.map((op) => h.terminal(op, 90_000)));
      expect(statuses).toEqual(ops.map(() => 'Succeeded'));
      h.cosmos.emu.clearFaults();
      await drainDelayedCreates(h, slowCreate.id, postsBefore);

      // Exactly one live cluster per Azure identity, and it is the one the Resource records.
      expect(
        subs
          .flatMap((s, i) => clustersNamed(h, s, 'rg-move', `move-${i}`))
          .map((c) => c.name)
          .sort(),
      ).toEqual(subs.map((_, i) => `move-${i}`).sort());
      for (const [i, op] of ops.entries()) {
        const [mine] = clustersNamed(h, subs[i], 'rg-move', `move-${i}`);
        expect(mine.azure).toMatchObject({ tenant_id: tenant, managed_resource_group_name: `rg-move-move-${i}-managed` });
        const resource = await readDocument(h, 'Resources', op.resourceDocId, op.partitionKey);
        expect(resource?.internalId).toBe(`/api/aro_hcp/v1alpha1/clusters/${mine.id}`);
      }
      // Not only the live ones: CS created exactly 8 clusters in all (a second handler's create
      // under the same id is refused with 409, never a second cluster).
      expect(h.cs.admin.count('POST /clusters', 201) - createdBefore).toBe(8);
    } finally {
      leaseEvents.unsubscribe();
      if (b) {
        await b.stop();
        h.instances.splice(h.instances.indexOf(b), 1);
      }
    }
  }

  it('while the 8 creates are in flight in Clusters Service, B takes leases from A: exactly 8 CS clusters, one per Azure identity, each the one its Resource records', () =>
    moveLeasesMidFlight('in Clusters Service'));

  it("while A's 8 handlers are still before their CS create (tenant reads slowed), B takes leases from A: exactly 8 CS clusters, one per Azure identity, each the one its Resource records", () =>
    moveLeasesMidFlight('before the CS create'));
});

/** `perRange` random subscription ids whose partition falls in each range (in range order). */
function subscriptionsPerRange(ranges: Array<{ min: string; max: string }>, perRange: number): string[] {
  const buckets = ranges.map((): string[] => []);
  while (buckets.some((b) => b.length < perRange)) {
    const sub = randomUUID();
    const i = ranges.findIndex((r) => rangeContains(r, effectivePartitionKey(sub)));
    if (i >= 0 && buckets[i].length < perRange) buckets[i].push(sub);
  }
  return buckets.flat();
}

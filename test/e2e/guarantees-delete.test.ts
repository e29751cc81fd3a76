import { randomUUID } from 'crypto';
import type { ClusterSnapshot } from '@opstream/clusters-service-simulator/admin';
import { clusterArmId } from '@opstream/frontend-simulator';
import {
  atTerminal,
  clusterDocuments,
  clustersNamed,
  createClusterInCs,
  csCallsCounted,
  drainDelayedCreates,
  faultById,
  readDocument,
  type TerminalSeen,
} from '../helpers/guarantees';
import { Harness, startHarness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/**
 * Guarantee: a Delete is Succeeded only when Clusters Service holds nothing for the resource —
 * neither the id on the documents nor any cluster found by its ARM name — and nothing appears
 * there afterwards. Each Delete's terminal transition is observed on the `transitions` stream with
 * a snapshot of Clusters Service taken in the same tick; uninstalling takes seconds, so a cluster
 * whose deletion was merely requested is still there to be seen.
 */
describe('guarantees: a Delete leaves nothing in Clusters Service', () => {
  let h: Harness;
  const tenant = randomUUID();
  const UNINSTALLING_MS = 2_000;
  const CS_TIMEOUT_MS = 3_000;
  /** Longest time CS may take to apply a create whose answer was lost (default: 2 × the CS timeout). */
  const GRACE_MS = 10_000;
  const newSub = async (): Promise<string> => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    return sub;
  };

  beforeAll(async () => {
    h = await startHarness({
      csDurations: { uninstallingMs: UNINSTALLING_MS },
      settings: { 'clustersService.timeoutMs': CS_TIMEOUT_MS, 'pipeline.inflightCreateGraceMs': GRACE_MS },
    });
  });
  afterAll(() => h.close());
  afterEach(() => h.cs.admin.clearFaults());

  /**
   * Starts watching for the terminal transition of the Delete of that cluster: its status, and what
   * CS held under the name at that instant. Call before the Delete is written.
   */
  function deleteOutcome(sub: string, rg: string, name: string): Promise<TerminalSeen<ClusterSnapshot[]>> {
    const armId = clusterArmId(sub, rg, name).toLowerCase();
    const seen = atTerminal(
      h,
      (e) => e.request === 'Delete' && e.resourceId?.toLowerCase() === armId,
      () => clustersNamed(h, sub, rg, name),
      60_000,
    );
    seen.catch(() => undefined); // awaited by the test; a failure before that must not be unhandled
    return seen;
  }

  async function expectNothingLeft(sub: string, rg: string, name: string): Promise<void> {
    await waitFor(() => clustersNamed(h, sub, rg, name).length === 0, {
      timeoutMs: UNINSTALLING_MS + 8_000,
      describe: () => `no CS cluster named ${name} (CS holds: ${JSON.stringify(clustersNamed(h, sub, rg, name))})`,
    });
  }

  it.each([
    // The Delete starts about one CS timeout (3 s) after the create went out, so the create lands
    // about 1.5 s, or 6 s, after the Delete started; the Delete waits pipeline.inflightCreateGraceMs
    // (10 s) for it — the second case is past the default grace of 2 × timeoutMs.
    ['soon after the Delete started', 4_500],
    ['past 2 × clustersService.timeoutMs, within pipeline.inflightCreateGraceMs', 9_000],
  ])(
    "a Delete issued after the Create's CS call timed out, the create landing %s: Create Canceled, Delete Succeeded, and CS ends with no cluster",
    async (_when, latencyMs) => {
      expect(latencyMs).toBeGreaterThan(h.config.clustersService.timeoutMs);
      const sub = await newSub();
      const name = `late-create-${latencyMs}`;
      const postsBefore = h.cs.admin.count('POST /clusters');
      const timeoutsBefore = await csCallsCounted(h.instances[0].opsUrl as string, 'POST /clusters', 'timeout');
      const slow = h.cs.admin.addFault({ kind: 'latency', endpoint: 'POST /clusters', latencyMs });
      const create = await h.frontend.createCluster(sub, 'rg-late', name);
      // opstream gave up waiting for the create (its /metrics count the timeout); CS still has it.
      await waitFor(async () => (await csCallsCounted(h.instances[0].opsUrl as string, 'POST /clusters', 'timeout')) > timeoutsBefore, {
        timeoutMs: 30_000,
        describe: () => 'the CS create call to time out',
      });
      const outcome = deleteOutcome(sub, 'rg-late', name);
      await h.frontend.deleteCluster(sub, 'rg-late', name);
      // The create opstream gave up on is still pending in Clusters Service: it lands after the Delete was issued.
      expect(h.cs.admin.count('POST /clusters') - postsBefore).toBeLessThan(faultById(h, slow.id)?.applied ?? 0);
      const seen = await outcome;
      expect({ status: seen.status, left: seen.snapshot.map((c) => `${c.id}:${c.state}`) }).toEqual({ status: 'Succeeded', left: [] });
      expect(await h.terminal(create)).toMatch(/^(Canceled|Succeeded)$/);
      // Once every delayed create has been answered, nothing is left under that name.
      await drainDelayedCreates(h, slow.id, postsBefore);
      await expectNothingLeft(sub, 'rg-late', name);
    },
    90_000,
  );

  it.each([
    ['the same Azure identity', (name: string) => `rg-leak-${name}-managed`, () => tenant],
    ['another tenant and managed resource group', () => 'mrg-elsewhere', () => randomUUID()],
  ])(
    'a cluster leaked under another id (%s) besides the one opstream created: the Delete is Succeeded only once CS holds neither',
    async (_shape, mrg, leakTenant) => {
      const sub = await newSub();
      const name = `leaky-${randomUUID().slice(0, 6)}`;
      const create = await h.frontend.createCluster(sub, 'rg-leak', name);
      expect(await h.terminal(create)).toBe('Succeeded');
      const leakedId = await createClusterInCs(h, {
        sub,
        rg: 'rg-leak',
        name,
        tenantId: leakTenant(),
        managedResourceGroupName: mrg(name),
      });
      expect(clustersNamed(h, sub, 'rg-leak', name)).toHaveLength(2);

      const outcome = deleteOutcome(sub, 'rg-leak', name);
      const del = await h.frontend.deleteCluster(sub, 'rg-leak', name);
      const seen = await outcome;
      expect(seen.operationId).toBe(del.operationId);
      expect({ status: seen.status, left: seen.snapshot.map((c) => `${c.id}:${c.state}`) }).toEqual({ status: 'Succeeded', left: [] });
      expect(h.cs.admin.clusters().some((c) => c.id === leakedId)).toBe(false);
      expect(await readDocument(h, 'Resources', del.resourceDocId, del.partitionKey)).toBeUndefined();
    },
  );

  it('a Delete whose Resource document does not exist while CS still has clusters under its ARM name deletes them and is Succeeded only once CS has none', async () => {
    const sub = await newSub();
    const name = `no-resource-${randomUUID().slice(0, 6)}`;
    await createClusterInCs(h, { sub, rg: 'rg-nores', name, tenantId: tenant, managedResourceGroupName: `mrg-${name}` });
    await createClusterInCs(h, { sub, rg: 'rg-nores', name, tenantId: randomUUID(), managedResourceGroupName: 'mrg-other' });
    // Ready before the Delete arrives (CS says "ready" while a delete starts).
    await waitFor(() => clustersNamed(h, sub, 'rg-nores', name).every((c) => c.state === 'ready'), {
      describe: () => 'the clusters to be ready',
    });
    const d = clusterDocuments(h, { sub, rg: 'rg-nores', name, request: 'Delete' });
    const outcome = deleteOutcome(sub, 'rg-nores', name);
    await h.database.container('Operations').items.create(d.operation);
    const seen = await outcome;
    expect(seen.operationId).toBe(d.opId);
    expect({ status: seen.status, left: seen.snapshot.map((c) => `${c.id}:${c.state}`) }).toEqual({ status: 'Succeeded', left: [] });
    expect((await readDocument(h, 'Operations', d.opId, sub))?.status).toBe('Succeeded');
    expect(await h.receiver.waitForNotification(d.opId, 10_000)).toMatchObject({ body: { status: 'Succeeded' } });
  });
});

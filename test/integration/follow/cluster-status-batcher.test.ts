import { ClustersServiceClient, ClustersServiceClientError } from '../../../src/clusters-service';
import { ClusterStatusBatcher, idListSearch } from '../../../processors/cluster/status-batcher';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { createBody, failureOf, newClusterId, newIdentity } from '../clusters-service/helpers';

const SEARCH = 'GET /clusters';
const STATUS = 'GET /clusters/{id}/status';

describe('ClusterStatusBatcher against the simulator', () => {
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;

  beforeAll(async () => {
    sim = await startClustersServiceSimulator();
    cs = new ClustersServiceClient({ baseUrl: sim.url });
  });
  afterAll(() => sim.close());
  afterEach(() => sim.admin.clearFaults());

  async function createClusters(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = newClusterId();
      await cs.createCluster(createBody(newIdentity(), id));
      ids.push(id);
    }
    return ids;
  }

  /** Calls made by `fn` to one endpoint. */
  async function callsDuring(endpoint: string, fn: () => Promise<unknown>): Promise<number> {
    const before = sim.admin.count(endpoint);
    await fn();
    return sim.admin.count(endpoint) - before;
  }

  it('quotes every id of the list, so an id cannot change the query', () => {
    expect(idListSearch(['a', "b' or name = 'x"])).toBe("id in ('a', 'b'' or name = ''x')");
  });

  it('reads that arrive together share one search call, each answered with its own cluster status', async () => {
    const ids = await createClusters(3);
    const missing = newClusterId();
    const batcher = new ClusterStatusBatcher(cs, { windowMs: 20 });
    let results: Awaited<ReturnType<ClusterStatusBatcher['observe']>>[] = [];
    const searches = await callsDuring(SEARCH, async () => {
      results = await Promise.all([...ids, missing].map((id) => batcher.observe(id)));
    });
    expect(searches).toBe(1);
    for (const [i, id] of ids.entries()) {
      const { observation } = results[i];
      expect(observation.found).toBe(true);
      if (!observation.found) continue;
      const direct = await cs.getClusterStatus(id);
      expect(observation.status).toMatchObject({ kind: 'ClusterStatus', id, href: `/api/aro_hcp/v1alpha1/clusters/${id}/status` });
      expect(typeof observation.status.state).toBe('string');
      expect(['pending', 'validating', 'installing', 'ready']).toContain(direct.state);
    }
    expect(results[3].observation).toEqual({ found: false });
  });

  it('searches by ARM name ride in the same call as reads by id (`or`), each answered with exactly its own clusters', async () => {
    const [byId] = await createClusters(1);
    const identity = newIdentity();
    const named = newClusterId();
    await cs.createCluster(createBody(identity, named));
    // Another cluster in the same subscription and resource group under another name: not a match.
    const neighbour = newClusterId();
    await cs.createCluster(createBody({ ...identity, resourceName: `${identity.resourceName}-x` }, neighbour));
    const nobody = { ...identity, resourceName: 'nobody-has-this-name' };
    const batcher = new ClusterStatusBatcher(cs, { windowMs: 20 });
    let results:
      | [Awaited<ReturnType<ClusterStatusBatcher['observe']>>, ...Array<Awaited<ReturnType<ClusterStatusBatcher['observeNamed']>>>]
      | undefined;
    const searches = await callsDuring(SEARCH, async () => {
      const [a, b, c] = await Promise.all([batcher.observe(byId), batcher.observeNamed(identity), batcher.observeNamed(nobody)]);
      results = [a, b, c];
    });
    expect(searches).toBe(1);
    const [idRead, namedRead, nobodyRead] = results ?? [];
    expect(idRead?.observation.found).toBe(true);
    expect(namedRead?.clusters.map((c) => c.id)).toEqual([named]);
    expect(namedRead?.clusters[0]?.status?.state).toEqual(expect.any(String));
    expect(nobodyRead?.clusters).toEqual([]);
  });

  it('without a window, a search by name is its own call, re-checked by exact comparison', async () => {
    const identity = newIdentity();
    const id = newClusterId();
    await cs.createCluster(createBody(identity, id));
    const batcher = new ClusterStatusBatcher(cs, { windowMs: 0 });
    const upper = { ...identity, resourceName: identity.resourceName.toUpperCase() };
    expect((await batcher.observeNamed(upper)).clusters.map((c) => c.id)).toEqual([id]);
  });

  it('watched clusters ride along in other reads, and a follower then needs no call of its own', async () => {
    const [a, b, c] = await createClusters(3);
    const batcher = new ClusterStatusBatcher(cs, { windowMs: 5 });
    batcher.watch(a);
    batcher.watch(b);
    const before = Date.now() - 1;
    expect(batcher.latest(a, before)).toBeUndefined();
    const searches = await callsDuring(SEARCH, () => batcher.observe(c));
    expect(searches).toBe(1);
    const seen = batcher.latest(a, before);
    expect(seen?.observation.found).toBe(true);
    expect(seen!.requestedAt).toBeGreaterThan(before);
    expect(batcher.latest(b, before)?.observation.found).toBe(true);
    // Not newer than a check made after the read was sent.
    expect(batcher.latest(a, seen!.requestedAt)).toBeUndefined();
    batcher.unwatch(a);
    expect(batcher.latest(a, before)).toBeUndefined();
    expect(batcher.watching).toBe(1);
  });

  it('a deleted cluster that rides along is reported gone; a failed cluster carries its provision error', async () => {
    const [gone, failed, other] = await createClusters(3);
    const durations = sim.admin.durations();
    sim.admin.setDurations({ deleteStartMs: 0, uninstallingMs: 0 });
    await cs.deleteCluster(gone).finally(() => sim.admin.setDurations(durations));
    sim.admin.failCluster(failed, { code: 'OCM3001', message: 'quota exceeded', description: 'Provisioning failed' });
    const batcher = new ClusterStatusBatcher(cs, { windowMs: 5 });
    batcher.watch(gone);
    const since = Date.now() - 1;
    const [{ observation }] = await Promise.all([batcher.observe(failed), batcher.observe(other)]);
    expect(observation).toEqual({
      found: true,
      status: expect.objectContaining({ state: 'error', provision_error_code: 'OCM3001', provision_error_message: 'quota exceeded' }),
    });
    const direct = await cs.getClusterStatus(failed);
    expect(observation.found && observation.status.description).toBe(direct.description);
    expect(batcher.latest(gone, since)?.observation).toEqual({ found: false });
  });

  it('more reads than fit one page take several calls; riders never add a call', async () => {
    const ids = await createClusters(5);
    const [rider] = await createClusters(1);
    const batcher = new ClusterStatusBatcher(cs, { windowMs: 5, maxIdsPerCall: 2 });
    batcher.watch(rider);
    const since = Date.now() - 1;
    let found = 0;
    const searches = await callsDuring(SEARCH, async () => {
      found = (await Promise.all(ids.map((id) => batcher.observe(id)))).filter((r) => r.observation.found).length;
    });
    expect(found).toBe(5);
    expect(searches).toBe(3);
    // The calls were full with requested ids: the rider was not read.
    expect(batcher.latest(rider, since)).toBeUndefined();
  });

  it('a watched cluster seen moments ago does not ride again until rideAgainAfterMs has passed', async () => {
    const [rider, a, b] = await createClusters(3);
    let now = Date.now();
    const batcher = new ClusterStatusBatcher(cs, { windowMs: 5, rideAgainAfterMs: 1000, now: () => now });
    batcher.watch(rider);
    await batcher.observe(a);
    const first = batcher.latest(rider, undefined);
    expect(first).toBeDefined();
    now += 500;
    await batcher.observe(b);
    expect(batcher.latest(rider, first!.requestedAt)).toBeUndefined();
    now += 600;
    await batcher.observe(a);
    expect(batcher.latest(rider, first!.requestedAt)?.requestedAt).toBe(now);
  });

  it('a failing search rejects every read it carried with the service error', async () => {
    const [a, b] = await createClusters(2);
    sim.admin.addFault({ kind: 'error', endpoint: SEARCH, status: 400, times: 1 });
    const batcher = new ClusterStatusBatcher(cs, { windowMs: 5 });
    const [ea, eb] = await Promise.all([failureOf(batcher.observe(a)), failureOf(batcher.observe(b))]);
    expect(ea).toBeInstanceOf(ClustersServiceClientError);
    expect(eb).toBe(ea);
    // The next read works again.
    expect((await batcher.observe(a)).observation.found).toBe(true);
  });

  it('with windowMs 0 every read is its own status call and nothing rides along', async () => {
    const [a, b] = await createClusters(2);
    const batcher = new ClusterStatusBatcher(cs, { windowMs: 0 });
    batcher.watch(b);
    const since = Date.now() - 1;
    const statusCalls = await callsDuring(STATUS, () => Promise.all([batcher.observe(a), batcher.observe(a)]));
    expect(statusCalls).toBe(2);
    expect(batcher.latest(b, since)).toBeUndefined();
    expect(batcher.watching).toBe(0);
  });

  it('rejects options that make no sense', () => {
    expect(() => new ClusterStatusBatcher(cs, { maxIdsPerCall: 0 })).toThrow(/maxIdsPerCall must be a whole number >= 1/);
    expect(() => new ClusterStatusBatcher(cs, { windowMs: -1 })).toThrow(/windowMs must be >= 0/);
  });
});

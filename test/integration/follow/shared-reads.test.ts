import { ClustersServiceClient, ClustersServiceClientError } from '../../../src/clusters-service';
import type { CsNodePool } from '../../../src/domain/types.generated';
import { SharedReads, wholeGroupSource } from '../../../processors/kit/shared-reads';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { createBody, failureOf, newClusterId, newIdentity } from '../clusters-service/helpers';

const LIST = 'GET /clusters/{id}/node_pools';

/** The kit's shared reads with node pools registered as the node pool looks register them, against the simulator. */
describe('SharedReads of node pools against the simulator', () => {
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;
  let now = 1_700_000_000_000;

  beforeAll(async () => {
    sim = await startClustersServiceSimulator();
    cs = new ClustersServiceClient({ baseUrl: sim.url });
  });
  afterAll(() => sim.close());
  afterEach(() => sim.admin.clearFaults());

  const reads = (windowMs = 20): SharedReads<CsNodePool> =>
    new SharedReads<CsNodePool>(
      wholeGroupSource({
        kind: 'node pool',
        listAll: (clusterId) => cs.listNodePools(clusterId),
        observeOne: (clusterId, id) => cs.observeNodePool(clusterId, id),
        idOf: (np) => np.id,
      }),
      { windowMs, now: () => now },
    );

  async function clusterWith(nodePools: readonly string[]): Promise<string> {
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    for (const np of nodePools) await cs.createNodePool(id, { id: np, replicas: 1, version: { id: '4.19.0' } }).catch(() => undefined);
    return id;
  }

  async function callsDuring(fn: () => Promise<unknown>): Promise<number> {
    const before = sim.admin.count(LIST);
    await fn();
    return sim.admin.count(LIST) - before;
  }

  it('reads arriving together share one list call per cluster; an absent node pool or cluster reads as gone', async () => {
    const a = await clusterWith(['np1', 'np2', 'np3']);
    const b = await clusterWith(['np1']);
    const shared = reads();
    let results: Array<CsNodePool | undefined> = [];
    const calls = await callsDuring(async () => {
      const got = await Promise.all([
        shared.read(a, 'np1'),
        shared.read(a, 'np3'),
        shared.read(a, 'nope'),
        shared.read(b, 'np1'),
        shared.read('no-such-cluster', 'np1'),
      ]);
      results = got.map((r) => r.item);
    });
    expect(calls).toBe(3); // one per cluster, the gone one included (its 404 says none are left)
    expect(results.map((np) => np?.href)).toEqual([
      `/api/aro_hcp/v1alpha1/clusters/${a}/node_pools/np1`,
      `/api/aro_hcp/v1alpha1/clusters/${a}/node_pools/np3`,
      undefined,
      `/api/aro_hcp/v1alpha1/clusters/${b}/node_pools/np1`,
      undefined,
    ]);
    expect(results[0]?.status?.state?.node_pool_state_value).toEqual(expect.any(String));
  });

  it('a watched node pool is read with its cluster’s next call, and latest() then answers without one', async () => {
    const a = await clusterWith(['np1', 'np2']);
    const shared = reads();
    const before = now;
    shared.watch(a, 'np2');
    now += 5000;
    expect(await callsDuring(() => shared.read(a, 'np1'))).toBe(1);
    expect(shared.latest(a, 'np2', before)?.item?.id).toBe('np2');
    expect(shared.latest(a, 'np2', now)).toBeUndefined(); // nothing read after now yet
    shared.unwatch(a, 'np2');
    expect(shared.latest(a, 'np2', before)).toBeUndefined();
  });

  it('with a window of 0 each read is a GET of its own node pool', async () => {
    const a = await clusterWith(['np1']);
    const before = sim.admin.count('GET /clusters/{id}/node_pools/{nodePool}');
    const read = await reads(0).read(a, 'np1');
    expect(read.item?.id).toBe('np1');
    expect(sim.admin.count('GET /clusters/{id}/node_pools/{nodePool}') - before).toBe(1);
    expect(await callsDuring(() => reads(0).read(a, 'np1'))).toBe(0);
  });

  it('a failed list call fails every read it was to answer', async () => {
    const a = await clusterWith(['np1']);
    sim.admin.addFault({ kind: 'error', endpoint: LIST, status: 400, times: 1 });
    const shared = reads();
    const failures = await Promise.all([failureOf(shared.read(a, 'np1')), failureOf(shared.read(a, 'np2'))]);
    for (const err of failures) expect(err).toBeInstanceOf(ClustersServiceClientError);
    expect(sim.admin.count(LIST, 400)).toBeGreaterThanOrEqual(1);
  });
});

import { ClustersServiceClient, isNotFound } from '../../../src/clusters-service';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { createBody, newClusterId, newIdentity } from './helpers';

/**
 * Clusters Service lists node pools per cluster only, whole (`GET /clusters/{id}/node_pools`, page
 * and size, no search): the client's listNodePools against the simulator.
 */
describe('Clusters Service client against the simulator: node pools listed per cluster', () => {
  let now = 1_700_000_000_000;
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;

  beforeAll(async () => {
    sim = await startClustersServiceSimulator({
      now: () => now,
      durations: { pendingMs: 100, validatingMs: 100, installingMs: 1000, deleteStartMs: 0, uninstallingMs: 500 },
    });
    cs = new ClustersServiceClient({ baseUrl: sim.url, pageSize: 2 });
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.admin.reset());

  const clusterWithNodePools = async (nodePools: readonly string[]): Promise<string> => {
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    now += 1300;
    for (const np of nodePools) await cs.createNodePool(id, { id: np, replicas: 2, version: { id: '4.19.0' } });
    return id;
  };

  it('answers the live node pools of one cluster, each with its status, paging through them', async () => {
    const cluster = await clusterWithNodePools(['np-a', 'np-b', 'np-c', 'np-d']);
    await clusterWithNodePools(['np-a']);
    now += 150;
    await cs.deleteNodePool(cluster, 'np-d');
    sim.admin.resetCounters();
    const found = await cs.listNodePools(cluster);
    expect(found.map((np) => [np.id, np.status?.state?.node_pool_state_value])).toEqual([
      ['np-a', 'ready'],
      ['np-b', 'ready'],
      ['np-c', 'ready'],
      ['np-d', 'uninstalling'],
    ]);
    for (const np of found) expect(np.href).toBe(`/api/aro_hcp/v1alpha1/clusters/${cluster}/node_pools/${np.id}`);
    // Four items at two a page: two calls, none to the per-node-pool endpoints.
    expect(sim.admin.count('GET /clusters/{id}/node_pools', 200)).toBe(2);
    expect(sim.admin.count('GET /clusters/{id}/node_pools/{nodePool}/status')).toBe(0);
    now += 600;
    expect((await cs.listNodePools(cluster)).map((np) => np.id)).toEqual(['np-a', 'np-b', 'np-c']);
  });

  it('an item says what the status call says, error message included', async () => {
    const cluster = await clusterWithNodePools(['np-ok', 'np-bad']);
    now += 1300;
    sim.admin.failNodePool(cluster, 'np-bad', { message: 'no capacity', recoverable: true });
    const found = await cs.listNodePools(cluster);
    expect(found).toHaveLength(2);
    for (const np of found) {
      const status = await cs.getNodePoolStatus(cluster, np.id);
      expect(np.status).toEqual({ current_replicas: status.current_replicas, message: status.message, state: status.state });
    }
    expect(found.find((np) => np.id === 'np-bad')?.status?.state?.node_pool_state_value).toBe('recoverable_error');
  });

  it('a gone cluster is a 404; a search, which the API model does not offer on this list, is a 400', async () => {
    const err = await cs.listNodePools('no-such-cluster').catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    const cluster = await clusterWithNodePools(['np']);
    const res = await fetch(`${sim.url}/api/aro_hcp/v1alpha1/clusters/${cluster}/node_pools?search=${encodeURIComponent("id in ('np')")}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      kind: 'Error',
      reason: "the node pool list takes no 'search' parameter (page and size only)",
    });
  });
});

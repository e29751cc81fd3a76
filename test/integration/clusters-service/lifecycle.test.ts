import { ClustersServiceClient, isConflict, isNotFound } from '../../../src/clusters-service';
import { mapClusterStatus, mapNodePoolStatus } from '../../../src/domain/cs-mapping';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { createBody, failureOf, newClusterId, newIdentity } from './helpers';

/**
 * Lifecycles on a stepped clock: the simulator derives states from timestamps, so the test moves
 * time and reads, with no waiting at all.
 */
describe('Clusters Service client against the simulator: lifecycles', () => {
  let now = 1_700_000_000_000;
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;

  beforeAll(async () => {
    sim = await startClustersServiceSimulator({
      now: () => now,
      durations: { pendingMs: 100, validatingMs: 100, installingMs: 1000, updatingMs: 500, deleteStartMs: 200, uninstallingMs: 1000 },
    });
    cs = new ClustersServiceClient({ baseUrl: sim.url });
  });
  afterAll(() => sim.close());

  it('a cluster created with a caller-chosen id goes pending → validating → installing → ready', async () => {
    const id = newClusterId();
    const created = await cs.createCluster(createBody(newIdentity(), id));
    expect(created).toMatchObject({ kind: 'Cluster', id, href: `/api/aro_hcp/v1alpha1/clusters/${id}`, status: { state: 'pending' } });
    const states: string[] = [];
    for (const step of [0, 100, 100, 1000]) {
      now += step;
      states.push((await cs.getClusterStatus(id)).state);
    }
    expect(states).toEqual(['pending', 'validating', 'installing', 'ready']);
    expect((await cs.getCluster(id)).status?.state).toBe('ready');
  });

  it('an update moves ready → updating → ready, takes the change in when it ends, and is refused (409) while not ready', async () => {
    const id = newClusterId();
    await cs.createCluster({ ...createBody(newIdentity(), id), api: { listening: 'external' } });
    expect(isConflict(await failureOf(cs.updateCluster(id, { version: { id: 'openshift-v4.18.2' } })))).toBe(true);
    now += 1200;
    const drain = { unit: 'minutes', value: 30 };
    const updated = await cs.updateCluster(id, { version: { id: 'openshift-v4.18.2' }, node_drain_grace_period: drain });
    // Still the cluster as it was: the change is in once the update is over.
    expect(updated).toMatchObject({ version: { id: 'openshift-v4.18.1' }, status: { state: 'updating' } });
    expect(updated.node_drain_grace_period).toBeUndefined();
    expect((await cs.getClusterStatus(id)).state).toBe('updating');
    now += 500;
    expect((await cs.getClusterStatus(id)).state).toBe('ready');
    expect(await cs.getCluster(id)).toMatchObject({ version: { id: 'openshift-v4.18.2' }, node_drain_grace_period: drain });
    // A PATCH merges into what is held: the API's listening stays when its access is set.
    now += 10;
    await cs.updateCluster(id, { api: { cidr_block_access: { allow: { mode: 'allow_list', values: ['10.0.0.0/8'] } } } });
    now += 500;
    expect((await cs.getCluster(id)).api).toEqual({
      listening: 'external',
      cidr_block_access: { allow: { mode: 'allow_list', values: ['10.0.0.0/8'] } },
    });
  });

  it('a delete reports ready for a moment, then uninstalling, then 404; the mapping keeps Deleting until 404', async () => {
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    now += 1200;
    expect(await cs.deleteCluster(id)).toEqual({ alreadyGone: false });
    const decide = async (): Promise<string> =>
      mapClusterStatus({ request: 'Delete', current: 'Deleting', observation: await cs.observeClusterStatus(id) }).kind;
    expect((await cs.getClusterStatus(id)).state).toBe('ready');
    expect(await decide()).toBe('keep');
    now += 200;
    expect((await cs.getClusterStatus(id)).state).toBe('uninstalling');
    expect(await cs.deleteCluster(id)).toEqual({ alreadyGone: false });
    now += 1000;
    expect(await cs.observeClusterStatus(id)).toEqual({ found: false });
    expect(await decide()).toBe('deleted');
    expect(isNotFound(await failureOf(cs.getCluster(id)))).toBe(true);
    expect(await cs.deleteCluster(id)).toEqual({ alreadyGone: true });
  });

  it('node pools: create, installing → ready, update, recoverable error, delete → 404', async () => {
    const clusterId = newClusterId();
    await cs.createCluster(createBody(newIdentity(), clusterId));
    now += 1200;
    const np = await cs.createNodePool(clusterId, {
      id: 'np1',
      replicas: 2,
      version: { id: 'openshift-v4.18.1' },
      azure_node_pool: { vm_size: 'Standard_D8s_v3' },
    });
    expect(np).toMatchObject({
      kind: 'NodePool',
      id: 'np1',
      href: `/api/aro_hcp/v1alpha1/clusters/${clusterId}/node_pools/np1`,
      replicas: 2,
    });
    now += 200;
    const installing = await cs.getNodePoolStatus(clusterId, 'np1');
    expect(installing).toMatchObject({ state: { node_pool_state_value: 'installing' }, current_replicas: 0 });
    expect(mapNodePoolStatus({ request: 'Create', current: 'Accepted', observation: { found: true, status: installing } })).toEqual({
      kind: 'set',
      status: 'Provisioning',
    });
    now += 1000;
    expect(await cs.getNodePoolStatus(clusterId, 'np1')).toMatchObject({ state: { node_pool_state_value: 'ready' }, current_replicas: 2 });
    await cs.updateNodePool(clusterId, 'np1', { labels: { tier: 'web', team: 'a' } });
    now += 500;
    expect((await cs.updateNodePool(clusterId, 'np1', { replicas: 4, labels: { tier: 'db' } })).replicas).toBe(2);
    expect((await cs.getNodePoolStatus(clusterId, 'np1')).state.node_pool_state_value).toBe('updating');
    expect(await cs.getNodePool(clusterId, 'np1')).toMatchObject({ replicas: 2, status: { state: { node_pool_state_value: 'updating' } } });
    now += 500;
    // Taken in when the update ends; labels replaced whole (a label left out is gone).
    expect(await cs.getNodePool(clusterId, 'np1')).toMatchObject({
      replicas: 4,
      labels: { tier: 'db' },
      status: { state: { node_pool_state_value: 'ready' } },
    });

    sim.admin.failNodePool(clusterId, 'np1', { message: 'subnet is full', recoverable: true });
    const failed = await cs.getNodePoolStatus(clusterId, 'np1');
    expect(failed).toMatchObject({ state: { node_pool_state_value: 'recoverable_error' }, message: 'subnet is full' });
    expect(mapNodePoolStatus({ request: 'Update', current: 'Updating', observation: { found: true, status: failed } })).toEqual({
      kind: 'set',
      status: 'Failed',
      error: { code: 'InternalServerError', message: 'subnet is full' },
    });

    expect(await cs.deleteNodePool(clusterId, 'np1')).toEqual({ alreadyGone: false });
    now += 1200;
    expect(await cs.observeNodePoolStatus(clusterId, 'np1')).toEqual({ found: false });
    expect(await cs.deleteNodePool(clusterId, 'np1')).toEqual({ alreadyGone: true });
    await expect(cs.createNodePool(clusterId, { id: 'np1', version: { id: 'v' } })).resolves.toMatchObject({ id: 'np1' });
    expect(isConflict(await failureOf(cs.createNodePool(clusterId, { id: 'np1', version: { id: 'v' } })))).toBe(true);
  });

  it('deleting a cluster takes its node pools with it', async () => {
    const clusterId = newClusterId();
    await cs.createCluster(createBody(newIdentity(), clusterId));
    await cs.createNodePool(clusterId, { id: 'np2', version: { id: 'v' } });
    now += 1200;
    await cs.deleteCluster(clusterId);
    now += 200;
    expect((await cs.getNodePoolStatus(clusterId, 'np2')).state.node_pool_state_value).toBe('uninstalling');
    now += 1000;
    expect(await cs.observeNodePoolStatus(clusterId, 'np2')).toEqual({ found: false });
  });
});

import { randomUUID } from 'crypto';
import { ClustersServiceClient } from '../../src/clusters-service';
import type { WrittenOperation } from '@opstream/frontend-simulator';
import { Harness, readOperation, startHarness } from '../helpers/opstream-harness';

/**
 * An Update sends Clusters Service the whole desired state, through the local servers: what the
 * frontend changed on the Resource (a node pool's labels, taints and drain timeout; a cluster's
 * drain timeout, authorized CIDRs and autoscaler) is what the simulator holds once the Update is
 * Succeeded (it takes a PATCH in when its update phase ends), and an Update with nothing different
 * ends Succeeded without any PATCH (counted by the simulator).
 */
describe('an Update sends the whole desired state', () => {
  let h: Harness;
  let cs: ClustersServiceClient;
  const sub = randomUUID();
  const rg = 'rg-full-update';

  beforeAll(async () => {
    h = await startHarness();
    cs = new ClustersServiceClient({ baseUrl: h.cs.url });
    await h.frontend.registerSubscription(sub, randomUUID());
  });
  afterAll(() => h.close());

  /** The CS id path of what the operation acted on: `[clusterId, nodePoolId?]`. */
  const csIds = async (op: WrittenOperation): Promise<string[]> => {
    const href = String((await readOperation(h, op))?.internalId);
    return href.split('/').filter((_, i, all) => all[i - 1] === 'clusters' || all[i - 1] === 'node_pools');
  };

  it('a node pool Update’s labels, taints and drain timeout reach Clusters Service, and a cluster Update’s access and autoscaler settings', async () => {
    expect(await h.terminal(await h.frontend.createCluster(sub, rg, 'changing'))).toBe('Succeeded');
    const create = await h.frontend.createNodePool(sub, rg, 'changing', 'np1', { replicas: 2 });
    expect(await h.terminal(create)).toBe('Succeeded');
    const [clusterId = '', nodePoolId = ''] = await csIds(create);

    const update = await h.frontend.updateNodePool(sub, rg, 'changing', 'np1', {
      labels: { tier: 'batch' },
      taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }],
      nodeDrainTimeoutMinutes: 20,
    });
    expect(await h.terminal(update)).toBe('Succeeded');
    expect(await cs.getNodePool(clusterId, nodePoolId)).toMatchObject({
      replicas: 2,
      labels: { tier: 'batch' },
      taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }],
      node_drain_grace_period: { unit: 'minutes', value: 20 },
      status: { state: { node_pool_state_value: 'ready' } },
    });

    const clusterUpdate = await h.frontend.updateCluster(sub, rg, 'changing', {
      nodeDrainTimeoutMinutes: 45,
      authorizedCidrs: ['10.0.0.0/8'],
      autoscaling: { maxNodesTotal: 30, maxNodeProvisionTimeSeconds: 600 },
    });
    expect(await h.terminal(clusterUpdate)).toBe('Succeeded');
    expect(await cs.getCluster(clusterId)).toMatchObject({
      version: { id: '4.18' },
      node_drain_grace_period: { unit: 'minutes', value: 45 },
      api: { cidr_block_access: { allow: { mode: 'allow_list', values: ['10.0.0.0/8'] } } },
      autoscaler: { max_node_provision_time: '600s', resource_limits: { max_nodes_total: 30 } },
      status: { state: 'ready' },
    });
  });

  it('an Update with nothing different ends Succeeded without a PATCH', async () => {
    expect(await h.terminal(await h.frontend.createCluster(sub, rg, 'unchanged'))).toBe('Succeeded');
    expect(await h.terminal(await h.frontend.createNodePool(sub, rg, 'unchanged', 'np1', { replicas: 2 }))).toBe('Succeeded');
    const patches = (): number => h.cs.admin.count('PATCH /clusters/{id}/node_pools/{nodePool}') + h.cs.admin.count('PATCH /clusters/{id}');
    const before = patches();
    expect(await h.terminal(await h.frontend.updateNodePool(sub, rg, 'unchanged', 'np1', { replicas: 2 }))).toBe('Succeeded');
    expect(await h.terminal(await h.frontend.updateCluster(sub, rg, 'unchanged', { version: '4.18' }))).toBe('Succeeded');
    expect(patches()).toBe(before);
  });
});

import { AmbiguousClusterMatchError, ClustersServiceClient, ClustersServiceClientError, azureIdentitySearch } from '../../../src/clusters-service';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '../../../infra/clusters-service';
import { createBody, failureOf, newClusterId, newIdentity } from './helpers';

describe('Clusters Service client against the simulator: search and paging', () => {
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;

  beforeAll(async () => {
    sim = await startClustersServiceSimulator();
    cs = new ClustersServiceClient({ baseUrl: sim.url, pageSize: 3 });
  });
  afterAll(() => sim.close());

  it("finds a cluster whose name contains quotes, and a crafted name cannot widen the query", async () => {
    const base = newIdentity();
    const quoted = { ...base, resourceName: "O'Brien's-cluster" };
    const other = { ...base, resourceName: 'victim' };
    const crafted = { ...base, resourceName: "x' and azure.resource_name = 'victim" };
    const quotedId = newClusterId();
    await cs.createCluster(createBody(quoted, quotedId));
    await cs.createCluster(createBody(other, newClusterId()));

    const found = await cs.findClusterByAzureIdentity(quoted);
    expect(found?.id).toBe(quotedId);
    expect(found?.azure?.resource_name).toBe("o'brien's-cluster");
    expect(await cs.findClustersByAzureIdentity(crafted)).toEqual([]);
    expect(sim.admin.count('GET /clusters', 400)).toBe(0);
  });

  it('the identity search matches only exact values (case rules applied before searching)', async () => {
    const identity = newIdentity({ tenantId: 'Tenant-ABC' });
    const id = newClusterId();
    await cs.createCluster(createBody(identity, id));
    expect((await cs.findClusterByAzureIdentity({ ...identity, resourceName: identity.resourceName.toUpperCase() }))?.id).toBe(id);
    expect(await cs.findClusterByAzureIdentity({ ...identity, tenantId: 'tenant-abc' })).toBeUndefined();
  });

  it('two clusters with one identity: ambiguous, do not act', async () => {
    const identity = newIdentity();
    await cs.createCluster(createBody(identity));
    await cs.createCluster(createBody(identity));
    const err = await failureOf(cs.findClusterByAzureIdentity(identity));
    expect(err).toBeInstanceOf(AmbiguousClusterMatchError);
    expect((err as AmbiguousClusterMatchError).clusterIds).toHaveLength(2);
    expect((err as AmbiguousClusterMatchError).retriable).toBe(true);
  });

  it('pages through a long list', async () => {
    const identity = newIdentity();
    const ids = [];
    for (let i = 0; i < 7; i++) {
      const id = newClusterId();
      ids.push(id);
      await cs.createCluster(createBody({ ...identity, resourceName: `c${i}` }, id));
    }
    sim.admin.resetCounters();
    const search = `azure.subscription_id = '${identity.subscriptionId.toLowerCase()}'`;
    const all = await cs.searchClusters(search);
    expect(all.map((c) => c.id)).toEqual(ids);
    expect(sim.admin.count('GET /clusters', 200)).toBe(3);
    const last = await cs.listClusters({ search, page: 3 });
    expect(last).toMatchObject({ kind: 'ClusterList', page: 3, size: 1, total: 7 });
    expect(last.items.map((c) => c.id)).toEqual([ids[6]]);
  });

  it('an unparsable expression is a 400 with an OCM error', async () => {
    const err = await failureOf(cs.listClusters({ search: "name = 'a' or name = 'b'" }));
    expect(err).toBeInstanceOf(ClustersServiceClientError);
    expect(err).toMatchObject({ status: 400, code: 'CLUSTERS-MGMT-400', retriable: false });
    expect((err as Error).message).toContain('invalid search expression: expected "and"');
    expect(await failureOf(cs.listClusters({ search: "azure.color = 'blue'" }))).toMatchObject({ status: 400, reason: "invalid search expression: unknown field 'azure.color'" });
  });

  it('the search expression is sent intact (URL-encoded) to the server', async () => {
    const identity = newIdentity({ resourceName: "a&b=c'%20d" });
    const id = newClusterId();
    await cs.createCluster(createBody(identity, id));
    expect((await cs.searchClusters(azureIdentitySearch(identity))).map((c) => c.id)).toEqual([id]);
  });
});

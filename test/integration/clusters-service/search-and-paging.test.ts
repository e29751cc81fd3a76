import {
  AmbiguousClusterMatchError,
  ClustersServiceClient,
  ClustersServiceClientError,
  azureIdentitySearch,
} from '../../../src/clusters-service';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { createBody, failureOf, newClusterId, newIdentity } from './helpers';

describe('Clusters Service client against the simulator: search and paging', () => {
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;

  beforeAll(async () => {
    sim = await startClustersServiceSimulator();
    cs = new ClustersServiceClient({ baseUrl: sim.url, pageSize: 3 });
  });
  afterAll(() => sim.close());

  it('finds a cluster whose name contains quotes, and a crafted name cannot widen the query', async () => {
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
    const err = await failureOf(cs.listClusters({ search: "name = 'a' xor name = 'b'" }));
    expect(err).toBeInstanceOf(ClustersServiceClientError);
    expect(err).toMatchObject({ status: 400, code: 'CLUSTERS-MGMT-400', retriable: false });
    expect((err as Error).message).toContain('invalid search expression: expected "and"');
    expect(await failureOf(cs.listClusters({ search: "name = 'a' or " }))).toMatchObject({ status: 400 });
    expect(await failureOf(cs.listClusters({ search: "azure.color = 'blue'" }))).toMatchObject({
      status: 400,
      reason: "invalid search expression: unknown field 'azure.color'",
    });
  });

  it('the search expression is sent intact (URL-encoded) to the server', async () => {
    const identity = newIdentity({ resourceName: "a&b=c'%20d" });
    const id = newClusterId();
    await cs.createCluster(createBody(identity, id));
    expect((await cs.searchClusters(azureIdentitySearch(identity))).map((c) => c.id)).toEqual([id]);
  });
});

/**
 * Following many clusters with one list call: `GET /clusters?search=id in (…)` over real HTTP,
 * on a stepped clock (no waiting).
 */
describe('Clusters Service simulator over HTTP: search by a list of ids', () => {
  let now = 1_700_000_000_000;
  let sim: ClustersServiceSimulator;

  interface ListItem {
    id: string;
    kind: string;
    status: Record<string, unknown>;
  }
  interface ClusterList {
    kind: string;
    page: number;
    size: number;
    total: number;
    items: ListItem[];
  }

  const api = (path: string): string => `${sim.url}/api/aro_hcp/v1alpha1${path}`;
  const list = async (query: Record<string, string>): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(api(`/clusters?${new URLSearchParams(query).toString()}`));
    return { status: res.status, body: await res.json() };
  };
  const listOk = async (query: Record<string, string>): Promise<ClusterList> => {
    const { status, body } = await list(query);
    expect(status).toBe(200);
    return body as ClusterList;
  };
  const idIn = (ids: readonly string[]): string => `id in (${ids.map((id) => `'${id}'`).join(', ')})`;
  const create = async (id: string, name?: string): Promise<void> => {
    const body = createBody(newIdentity(name === undefined ? {} : { resourceName: name }), id);
    const res = await fetch(api('/clusters'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
  };
  const createMany = async (n: number): Promise<string[]> => {
    const ids = Array.from({ length: n }, () => newClusterId());
    for (const id of ids) await create(id);
    return ids;
  };

  beforeAll(async () => {
    sim = await startClustersServiceSimulator({
      now: () => now,
      durations: { pendingMs: 100, validatingMs: 100, installingMs: 1000, deleteStartMs: 0, uninstallingMs: 500 },
    });
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.admin.reset());

  it('answers only the listed clusters, in creation order, each with its status, in one call', async () => {
    const ids = await createMany(5);
    await createMany(2);
    now += 1200;
    sim.admin.resetCounters();
    const page = await listOk({ search: idIn([ids[3]!, 'not-a-cluster', ids[1]!, ids[3]!]), size: '100', page: '1' });
    expect(page).toMatchObject({ kind: 'ClusterList', page: 1, size: 2, total: 2 });
    expect(page.items.map((c) => c.id)).toEqual([ids[1], ids[3]]);
    for (const item of page.items) {
      expect(item).toMatchObject({ kind: 'Cluster', href: `/api/aro_hcp/v1alpha1/clusters/${item.id}` });
      expect(item.status).toEqual({ state: 'ready', description: 'Cluster is ready' });
    }
    expect(sim.admin.count('GET /clusters', 200)).toBe(1);
    expect(sim.admin.count('GET /clusters/{id}/status')).toBe(0);
  });

  it('each item has the state of its own lifecycle', async () => {
    const [first] = await createMany(1);
    now += 150;
    const [second] = await createMany(1);
    const [third] = await createMany(1);
    await fetch(api(`/clusters/${third}`), { method: 'DELETE' });
    now += 10;
    const page = await listOk({ search: `id IN('${first}','${second}','${third}')` });
    expect(page.items.map((c) => [c.id, c.status.state])).toEqual([
      [first, 'validating'],
      [second, 'pending'],
      [third, 'uninstalling'],
    ]);
    now += 500;
    expect((await listOk({ search: idIn([first!, second!, third!]) })).items.map((c) => c.id)).toEqual([first, second]);
  });

  it('combines an id list with equality terms', async () => {
    await create('alpha-1', 'alpha');
    await create('beta-1', 'beta');
    await create('alpha-2', 'alpha');
    const page = await listOk({ search: "id in ('alpha-1', 'beta-1', 'alpha-2') and name = 'alpha'" });
    expect(page.items.map((c) => c.id)).toEqual(['alpha-1', 'alpha-2']);
    expect((await listOk({ search: "name in ('beta', 'gamma') and id in ('alpha-1', 'beta-1')" })).items.map((c) => c.id)).toEqual([
      'beta-1',
    ]);
  });

  it('pages over an id list: page, size and total', async () => {
    const ids = await createMany(5);
    await createMany(3);
    const search = idIn(ids);
    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push(await listOk({ search, size: '2', page: String(page) }));
    expect(pages.map((p) => [p.page, p.size, p.total])).toEqual([
      [1, 2, 5],
      [2, 2, 5],
      [3, 1, 5],
      [4, 0, 5],
    ]);
    expect(pages.flatMap((p) => p.items.map((c) => c.id))).toEqual(ids);
    const whole = await listOk({ search });
    expect(whole).toMatchObject({ page: 1, size: 5, total: 5 });
  });

  it('an item in error carries the provision error, exactly as GET /clusters/{id}/status does', async () => {
    sim.admin.addProvisionFailure({
      code: 'OCM4001',
      message: 'inflight checks failed',
      description: 'egress blocked',
      clusterName: 'doomed',
      times: 1,
    });
    await create('doomed-1', 'doomed');
    const [failed, fine, bare] = await createMany(3);
    now += 1200;
    sim.admin.failCluster(failed!, { code: 'OCM3001', message: 'quota exceeded', description: 'Not enough cores' });
    sim.admin.failCluster(bare!, { code: 'OCM3055' });

    const page = await listOk({ search: idIn(['doomed-1', failed!, fine!, bare!]) });
    const byId = new Map(page.items.map((c) => [c.id, c.status]));
    expect(byId.get('doomed-1')).toEqual({
      state: 'error',
      description: 'egress blocked',
      provision_error_code: 'OCM4001',
      provision_error_message: 'inflight checks failed',
    });
    expect(byId.get(failed!)).toEqual({
      state: 'error',
      description: 'Not enough cores',
      provision_error_code: 'OCM3001',
      provision_error_message: 'quota exceeded',
    });
    expect(byId.get(bare!)).toEqual({ state: 'error', description: 'Cluster provisioning failed', provision_error_code: 'OCM3055' });
    expect(byId.get(fine!)).toEqual({ state: 'ready', description: 'Cluster is ready' });

    for (const [id, status] of byId) {
      const single = (await (await fetch(api(`/clusters/${id}/status`))).json()) as Record<string, unknown>;
      const { kind, id: statusId, href, ...fields } = single;
      expect({ kind, statusId, href }).toEqual({
        kind: 'ClusterStatus',
        statusId: id,
        href: `/api/aro_hcp/v1alpha1/clusters/${id}/status`,
      });
      expect(fields).toEqual(status);
    }
  });

  it.each([
    ["id in ('a',", 'expected a value in single quotes at position 11'],
    ["id in ('a', 'b'", 'unterminated list: expected "," or ")" at position 15'],
    ['id in ()', 'empty list: expected at least one value at position 7'],
    ["id in ('a' 'b')", 'expected "," or ")" in the list at position 11'],
    ["azure.color in ('blue')", "unknown field 'azure.color'"],
  ])('a malformed list %j is a 400 OCM error', async (search, reason) => {
    const { status, body } = await list({ search });
    expect(status).toBe(400);
    expect(body).toMatchObject({ kind: 'Error', code: 'CLUSTERS-MGMT-400', reason: `invalid search expression: ${reason}` });
  });
});

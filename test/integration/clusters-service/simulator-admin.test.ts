import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { adminCall } from './helpers';

/** The /_admin HTTP surface, used by out-of-process runs (`opstream emulator clusters-service`). */
describe('Clusters Service simulator admin over HTTP', () => {
  let sim: ClustersServiceSimulator;
  const api = (path: string): string => `${sim.url}/api/aro_hcp/v1alpha1${path}`;
  const admin = (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> =>
    adminCall(sim, method, path, body);
  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(api(path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const clusterBody = (id: string, name = id) => ({
    id,
    name,
    region: { id: 'eastus' },
    version: { id: '4.18' },
    azure: { subscription_id: 's', resource_group_name: 'rg', resource_name: name, tenant_id: 't', managed_resource_group_name: 'm' },
  });

  beforeAll(async () => {
    sim = await startClustersServiceSimulator();
  });
  afterAll(() => sim.close());
  beforeEach(async () => {
    expect((await admin('POST', '/reset')).status).toBe(204);
  });

  it('refuses admin calls without the admin token, or with another one (401, saying what to send)', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${sim.adminToken}x`, `Basic ${sim.adminToken}`, sim.adminToken]) {
      const res = await fetch(`${sim.url}/_admin/reset`, { method: 'POST', headers: authorization === undefined ? {} : { authorization } });
      expect([authorization, res.status]).toEqual([authorization, 401]);
      expect(await res.json()).toMatchObject({ kind: 'Error', reason: expect.stringContaining('Authorization: Bearer <admin token>') });
    }
    expect(sim.adminToken).toMatch(/^[0-9a-f]{32}$/); // random unless given
    expect((await admin('GET', '/counters')).status).toBe(200);
  });

  it('takes the admin token it is given, and keeps it apart from the API token', async () => {
    const guarded = await startClustersServiceSimulator({ token: 'api-token', adminToken: 'admin-token' });
    try {
      const reset = (authorization: string): Promise<Response> =>
        fetch(`${guarded.url}/_admin/reset`, { method: 'POST', headers: { authorization } });
      expect((await reset('Bearer admin-token')).status).toBe(204);
      expect((await reset('Bearer api-token')).status).toBe(401);
      const list = (authorization: string): Promise<Response> =>
        fetch(`${guarded.url}/api/aro_hcp/v1alpha1/clusters`, { headers: { authorization } });
      expect((await list('Bearer api-token')).status).toBe(200);
      expect((await list('Bearer admin-token')).status).toBe(401);
      expect((await list('Bearer api-tokenx')).status).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it('durations: read, merge, and reject unknown or negative values', async () => {
    const set = await admin('PUT', '/durations', { pendingMs: 0, validatingMs: 0, installingMs: 0 });
    expect(set).toMatchObject({ status: 200, json: { pendingMs: 0, validatingMs: 0, installingMs: 0, updatingMs: 2000 } });
    expect(await admin('PUT', '/durations', { installMs: 5 })).toMatchObject({
      status: 400,
      json: { reason: expect.stringContaining("unknown duration 'installMs'") },
    });
    expect(await admin('PUT', '/durations', { pendingMs: -1 })).toMatchObject({ status: 400 });
    expect((await admin('GET', '/durations')).json).toMatchObject({ pendingMs: 0 });
    expect((await post('/clusters', clusterBody('c1'))).status).toBe(201);
    const status = (await (await fetch(api('/clusters/c1/status'))).json()) as { state: string };
    expect(status.state).toBe('ready');
  });

  it('faults: add over HTTP, observe, list, remove; a bad rule is a 400', async () => {
    const added = await admin('POST', '/faults', { kind: 'error', endpoint: 'GET /clusters', status: 500 });
    expect(added).toMatchObject({ status: 201, json: { id: expect.any(String), kind: 'error', applied: 0 } });
    const res = await fetch(api('/clusters'));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      kind: 'Error',
      id: '500',
      code: 'CLUSTERS-MGMT-500',
      href: '/api/aro_hcp/v1alpha1/errors/500',
    });
    expect((await admin('GET', '/faults')).json).toMatchObject([{ applied: 1 }]);
    expect((await admin('DELETE', `/faults/${(added.json as { id: string }).id}`)).status).toBe(204);
    expect((await fetch(api('/clusters'))).status).toBe(200);
    expect(await admin('POST', '/faults', { kind: 'error', rate: 7 })).toMatchObject({
      status: 400,
      json: { reason: expect.stringContaining('rate must be between 0 and 1') },
    });
  });

  it('errors and provision failures over HTTP', async () => {
    await admin('PUT', '/durations', { pendingMs: 0, validatingMs: 0, installingMs: 0 });
    expect(
      (
        await admin('POST', '/provision-failures', {
          code: 'OCM4001',
          clusterName: 'doomed',
          inflightChecks: [{ name: 'egress', status: 'failed', error: 'blocked' }],
        })
      ).status,
    ).toBe(204);
    await post('/clusters', clusterBody('doomed'));
    await post('/clusters', clusterBody('fine'));
    const doomed = (await (await fetch(api('/clusters/doomed/status'))).json()) as Record<string, unknown>;
    expect(doomed).toMatchObject({ state: 'error', provision_error_code: 'OCM4001' });
    const checks = (await (await fetch(api('/clusters/doomed/inflight_checks'))).json()) as { items: unknown[] };
    expect(checks.items).toMatchObject([{ kind: 'InflightCheck', name: 'egress', status: 'failed', details: { error: 'blocked' } }]);
    expect(((await (await fetch(api('/clusters/fine/status'))).json()) as { state: string }).state).toBe('ready');

    expect((await admin('POST', '/clusters/fine/error', { code: 'OCM3001', message: 'quota' })).status).toBe(204);
    expect(await (await fetch(api('/clusters/fine/status'))).json()).toMatchObject({
      state: 'error',
      provision_error_code: 'OCM3001',
      provision_error_message: 'quota',
    });
    expect(await admin('POST', '/clusters/nope/error', { code: 'X' })).toMatchObject({ status: 404 });
    expect((await admin('GET', '/clusters')).json).toMatchObject([
      { id: 'doomed', state: 'error' },
      { id: 'fine', state: 'error' },
    ]);
  });

  it('counters by endpoint and status, and reset', async () => {
    await fetch(api('/clusters/missing'));
    await fetch(api('/clusters/missing'));
    await fetch(api('/nothing-here'));
    await fetch(api('/clusters/x'), { method: 'PUT' });
    expect((await admin('GET', '/counters')).json).toEqual([
      { endpoint: 'GET (unknown)', status: 404, count: 1 },
      { endpoint: 'GET /clusters/{id}', status: 404, count: 2 },
      { endpoint: 'PUT (unknown)', status: 405, count: 1 },
    ]);
    expect((await admin('DELETE', '/counters')).status).toBe(204);
    expect((await admin('GET', '/counters')).json).toEqual([]);
  });

  it('bad requests get OCM error bodies', async () => {
    const notJson = await fetch(api('/clusters'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ kind: 'Error', reason: 'request body is not valid JSON' });
    const missing = await post('/clusters', { name: 'x' });
    expect(await missing.json()).toMatchObject({ kind: 'Error', code: 'CLUSTERS-MGMT-400', reason: 'body.region is required' });
    const badPage = await fetch(api('/clusters?page=0'));
    expect(await badPage.json()).toMatchObject({ reason: "parameter 'page' must be an integer >= 1, got '0'" });
    const duplicate = await post('/clusters', clusterBody('dup'));
    expect(duplicate.status).toBe(201);
    expect((await post('/clusters', clusterBody('dup'))).status).toBe(409);
    expect(await admin('GET', '/no-such-thing')).toMatchObject({ status: 404 });
  });
});

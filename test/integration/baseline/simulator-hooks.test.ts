import {
  startClustersServiceSimulator,
  type ApiCallRecord,
  type ClustersServiceSimulator,
  type DurationTarget,
} from '@opstream/clusters-service-simulator';

/** The two in-process hooks the benchmark uses: per-object durations and a call log. */
describe('CS simulator benchmark hooks', () => {
  let now = 1_000_000;
  let sim: ClustersServiceSimulator;
  const calls: ApiCallRecord[] = [];
  const targets: DurationTarget[] = [];
  const api = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${sim.url}/api/aro_hcp/v1alpha1${path}`, { ...init, headers: { 'content-type': 'application/json' } });

  beforeAll(async () => {
    sim = await startClustersServiceSimulator({
      port: 0,
      now: () => now,
      durations: { pendingMs: 10, validatingMs: 10, installingMs: 10, updatingMs: 10, deleteStartMs: 10, uninstallingMs: 10 },
      durationsFor: (target) => {
        targets.push(target);
        return target.clusterName === 'slow' ? { installingMs: 5_000 } : undefined;
      },
      onCall: (call) => calls.push(call),
    });
  });
  afterAll(() => sim.close());

  const create = (name: string): Promise<Response> =>
    api('/clusters', {
      method: 'POST',
      body: JSON.stringify({
        id: name,
        name,
        region: { id: 'eastus' },
        version: { id: '4.18' },
        azure: { subscription_id: 's', resource_group_name: 'rg', resource_name: name, tenant_id: 't', managed_resource_group_name: 'm' },
      }),
    });
  const state = async (id: string): Promise<string> => ((await (await api(`/clusters/${id}/status`)).json()) as { state: string }).state;

  it('gives each object the durations durationsFor returns for it, over the simulator durations', async () => {
    expect((await create('slow')).status).toBe(201);
    expect((await create('quick')).status).toBe(201);
    now += 100;
    expect(await state('quick')).toBe('ready');
    expect(await state('slow')).toBe('installing');
    now += 5_000;
    expect(await state('slow')).toBe('ready');
    expect(targets.slice(0, 2)).toEqual([
      { kind: 'cluster', action: 'create', clusterId: 'slow', clusterName: 'slow' },
      { kind: 'cluster', action: 'create', clusterId: 'quick', clusterName: 'quick' },
    ]);
    expect((await api('/clusters/quick', { method: 'DELETE' })).status).toBe(204);
    expect(targets[2]).toEqual({ kind: 'cluster', action: 'delete', clusterId: 'quick', clusterName: 'quick' });
  });

  it('reports every answered call, errors included, with its body and the instant it took effect', async () => {
    calls.length = 0;
    const before = Date.now();
    await create('logged');
    await api('/clusters/nope/status');
    expect(calls.map((c) => [c.endpoint, c.status, c.path])).toEqual([
      ['POST /clusters', 201, '/clusters'],
      ['GET /clusters/{id}/status', 404, '/clusters/nope/status'],
    ]);
    expect((calls[0].body as { name: string }).name).toBe('logged');
    expect(calls[0].receivedAt).toBeGreaterThanOrEqual(before);
    expect(calls[1].receivedAt).toBeGreaterThanOrEqual(calls[0].receivedAt);
  });
});

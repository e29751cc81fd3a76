import { ClustersServiceClient, ClustersServiceClientError, isConflict, isNotFound } from '../../../src/clusters-service';
import type { CsExternalAuthCreateRequest } from '../../../src/domain/types.generated';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { createBody, failureOf, newClusterId, newIdentity } from './helpers';

function externalAuthBody(id: string): CsExternalAuthCreateRequest {
  return {
    id,
    issuer: { url: 'https://login.microsoftonline.com/tenant/v2.0', audiences: ['console'], ca: '' },
    clients: [{ component: { name: 'console', namespace: 'openshift-console' }, id: 'client-1', extra_scopes: [], type: 'public' }],
    claim: {
      mappings: { username: { claim: 'email', prefix_policy: 'NoPrefix' }, groups: { claim: 'groups' } },
      validation_rules: [{ claim: 'aud', required_value: 'console' }],
    },
  };
}

/** External auths through the real client, on a stepped clock (states derive from time). */
describe('Clusters Service client against the simulator: external auths', () => {
  let now = 1_700_000_000_000;
  let sim: ClustersServiceSimulator;
  let cs: ClustersServiceClient;

  beforeAll(async () => {
    sim = await startClustersServiceSimulator({
      now: () => now,
      durations: { pendingMs: 0, validatingMs: 0, installingMs: 0, externalAuthMs: 400, deleteStartMs: 0, uninstallingMs: 100 },
    });
    cs = new ClustersServiceClient({ baseUrl: sim.url });
  });
  afterAll(() => sim.close());

  async function cluster(): Promise<string> {
    const id = newClusterId();
    await cs.createCluster(createBody(newIdentity(), id));
    return id;
  }

  it('create (installing) → ready; PATCH → updating → ready with the new spec; DELETE → uninstalling → 404', async () => {
    const clusterId = await cluster();
    const created = await cs.createExternalAuth(clusterId, externalAuthBody('entra'));
    expect(created).toMatchObject({
      kind: 'ExternalAuth',
      id: 'entra',
      href: `/api/aro_hcp/v1alpha1/clusters/${clusterId}/external_auth_config/external_auths/entra`,
      issuer: { url: 'https://login.microsoftonline.com/tenant/v2.0', audiences: ['console'] },
      status: { state: { value: 'installing', last_updated_timestamp: new Date(now).toISOString() } },
    });
    expect(isConflict(await failureOf(cs.createExternalAuth(clusterId, externalAuthBody('entra'))))).toBe(true);

    now += 400;
    expect((await cs.getExternalAuth(clusterId, 'entra')).status?.state).toEqual({
      value: 'ready',
      last_updated_timestamp: new Date(now).toISOString(),
    });

    const patched = await cs.updateExternalAuth(clusterId, 'entra', {
      issuer: { url: 'https://issuer.example/v2', audiences: ['a', 'b'] },
    });
    expect(patched).toMatchObject({
      issuer: { url: 'https://issuer.example/v2', audiences: ['a', 'b'] },
      status: { state: { value: 'updating' } },
    });
    expect(patched.clients?.[0]?.id).toBe('client-1'); // what the PATCH did not name stays
    now += 400;
    const observed = await cs.observeExternalAuth(clusterId, 'entra');
    expect(observed).toMatchObject({
      found: true,
      status: { status: { state: { value: 'ready' } }, issuer: { url: 'https://issuer.example/v2' } },
    });

    expect(await cs.deleteExternalAuth(clusterId, 'entra')).toEqual({ alreadyGone: false });
    expect((await cs.getExternalAuth(clusterId, 'entra')).status?.state.value).toBe('uninstalling');
    expect(
      isConflict(await failureOf(cs.updateExternalAuth(clusterId, 'entra', { claim: { mappings: { username: { claim: 'sub' } } } }))),
    ).toBe(true);
    expect(await cs.deleteExternalAuth(clusterId, 'entra')).toEqual({ alreadyGone: false }); // idempotent while uninstalling
    now += 400;
    expect(await cs.observeExternalAuth(clusterId, 'entra')).toEqual({ found: false });
    expect(isNotFound(await failureOf(cs.getExternalAuth(clusterId, 'entra')))).toBe(true);
    expect(await cs.deleteExternalAuth(clusterId, 'entra')).toEqual({ alreadyGone: true });
    // The name is free again.
    await expect(cs.createExternalAuth(clusterId, externalAuthBody('entra'))).resolves.toMatchObject({ id: 'entra' });
  });

  it('lists a cluster’s external auths whole, each as GET of it says (the shared read of external auth looks)', async () => {
    const clusterId = await cluster();
    await cs.createExternalAuth(clusterId, externalAuthBody('one'));
    await cs.createExternalAuth(clusterId, externalAuthBody('two'));
    now += 500;
    await cs.deleteExternalAuth(clusterId, 'two');
    const listed = await cs.listExternalAuths(clusterId);
    expect(listed.map((ea) => [ea.id, ea.status?.state.value])).toEqual([
      ['one', 'ready'],
      ['two', 'uninstalling'],
    ]);
    for (const ea of listed) expect(ea).toEqual(await cs.getExternalAuth(clusterId, ea.id));
    expect(isNotFound(await failureOf(cs.listExternalAuths(newClusterId())))).toBe(true);
  });

  it('admin puts an external auth in error with a message; a PATCH tries again', async () => {
    const clusterId = await cluster();
    await cs.createExternalAuth(clusterId, externalAuthBody('broken'));
    now += 400;
    sim.admin.failExternalAuth(clusterId, 'broken', { message: 'issuer unreachable' });
    expect((await cs.getExternalAuth(clusterId, 'broken')).status).toMatchObject({
      state: { value: 'error', last_updated_timestamp: new Date(now).toISOString() },
      message: 'issuer unreachable',
    });
    await cs.updateExternalAuth(clusterId, 'broken', { issuer: { url: 'https://fixed.example', audiences: ['x'] } });
    now += 400;
    expect((await cs.getExternalAuth(clusterId, 'broken')).status?.state.value).toBe('ready');
  });

  it('the cluster must exist; a body outside its schema is a 400; deleting the cluster takes its external auths', async () => {
    expect(isNotFound(await failureOf(cs.createExternalAuth(newClusterId(), externalAuthBody('x'))))).toBe(true);
    const clusterId = await cluster();
    const invalid = await failureOf(cs.createExternalAuth(clusterId, { ...externalAuthBody('Upper'), id: 'Upper' }));
    expect(invalid).toBeInstanceOf(ClustersServiceClientError);
    expect(invalid).toMatchObject({ status: 400, reason: expect.stringContaining('body.id') });

    await cs.createExternalAuth(clusterId, externalAuthBody('one'));
    await cs.createExternalAuth(clusterId, externalAuthBody('two'));
    const list = await fetch(`${sim.url}/api/aro_hcp/v1alpha1/clusters/${clusterId}/external_auth_config/external_auths?size=1&page=2`);
    expect(await list.json()).toMatchObject({ kind: 'ExternalAuthList', page: 2, size: 1, total: 2, items: [{ id: 'two' }] });

    await cs.deleteCluster(clusterId);
    now += 100;
    expect(await cs.observeExternalAuth(clusterId, 'one')).toEqual({ found: false });
  });
});

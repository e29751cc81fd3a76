import { randomUUID } from 'crypto';
import { Harness, cliEnv, readOperation, startHarness, waitForStatus } from '../helpers/opstream-harness';
import { runCli } from '../helpers/cli';
import { ClustersServiceClient } from '../../src/clusters-service';
import type { WrittenOperation } from '@opstream/frontend-simulator';

/**
 * External auths end to end, through the local servers and the real SDKs: the frontend simulator
 * writes the documents as ARO-HCP's frontend does, opstream drives Clusters Service's external auth
 * API, and the statuses ARM reads follow what Clusters Service reports.
 */
describe('external auth lifecycle', () => {
  let h: Harness;
  let cs: ClustersServiceClient;
  const tenant = randomUUID();

  beforeAll(async () => {
    h = await startHarness();
    cs = new ClustersServiceClient({ baseUrl: h.cs.url });
  });
  afterAll(() => h.close());

  /** A subscription with a cluster at rest: its CS id. */
  async function readyCluster(sub: string, rg: string, name: string): Promise<string> {
    await h.frontend.registerSubscription(sub, tenant);
    const create = await h.frontend.createCluster(sub, rg, name);
    expect(await h.terminal(create)).toBe('Succeeded');
    return (
      String((await readOperation(h, create))?.internalId)
        .split('/')
        .pop() ?? ''
    );
  }

  async function resourceOf(op: WrittenOperation): Promise<Record<string, unknown> | undefined> {
    const { resource } = await h.database.container('Resources').item(op.resourceDocId, op.partitionKey).read<Record<string, unknown>>();
    return resource ?? undefined;
  }

  it('create → Succeeded, update → Succeeded with the new issuer in CS, delete → Succeeded and CS has none', async () => {
    const sub = randomUUID();
    const clusterId = await readyCluster(sub, 'rg-ea', 'c1');

    const create = await h.frontend.createExternalAuth(sub, 'rg-ea', 'c1', 'Entra');
    expect(await h.terminal(create)).toBe('Succeeded');
    const href = `/api/aro_hcp/v1alpha1/clusters/${clusterId}/external_auth_config/external_auths/entra`;
    expect(await readOperation(h, create)).toMatchObject({ status: 'Succeeded', internalId: href });
    expect(await resourceOf(create)).toMatchObject({ provisioningState: 'Succeeded', internalId: href, activeOperationId: '' });
    const held = await cs.getExternalAuth(clusterId, 'entra');
    expect(held.status?.state.value).toBe('ready');
    // explain reads the external auth itself, by its kind.
    const explained = await runCli(['explain', create.operationId], cliEnv(h));
    expect(explained.code).toBe(0);
    expect(explained.stdout).toMatch(new RegExp(`\nClusters Service +external auth ${href}: ready`));
    expect(held.clients?.[0]).toMatchObject({ component: { name: 'console', namespace: 'openshift-console' }, type: 'confidential' });

    const issuer = { url: 'https://login.example.com/rotated/v2.0', audiences: ['app-a', 'app-b'] };
    const update = await h.frontend.updateExternalAuth(sub, 'rg-ea', 'c1', 'Entra', { issuer });
    expect(await h.terminal(update)).toBe('Succeeded');
    expect((await cs.getExternalAuth(clusterId, 'entra')).issuer).toEqual(issuer);
    // One PATCH (the issuer differed), one POST: never a second external auth.
    expect(h.cs.admin.count('PATCH /clusters/{id}/external_auth_config/external_auths/{externalAuth}', 200)).toBeGreaterThanOrEqual(1);
    expect(h.cs.admin.count('POST /clusters/{id}/external_auth_config/external_auths', 201)).toBe(1);

    const del = await h.frontend.deleteExternalAuth(sub, 'rg-ea', 'c1', 'Entra');
    expect(await h.terminal(del)).toBe('Succeeded');
    expect(await cs.observeExternalAuth(clusterId, 'entra')).toEqual({ found: false });
    expect(await resourceOf(del)).toBeUndefined();
  });

  it('a create Clusters Service refuses fails with its error', async () => {
    const sub = randomUUID();
    await readyCluster(sub, 'rg-ea', 'refused');
    h.cs.admin.addFault({ kind: 'error', endpoint: 'POST /clusters/{id}/external_auth_config/external_auths', status: 400, times: 1 });
    const create = await h.frontend.createExternalAuth(sub, 'rg-ea', 'refused', 'entra');
    expect(await h.terminal(create)).toBe('Failed');
    expect((await readOperation(h, create))?.error).toMatchObject({
      code: 'InvalidRequestContent',
      message: expect.stringContaining('injected fault: 400'),
    });
  });

  it('an external auth Clusters Service reports in error fails with CS’s message', async () => {
    const sub = randomUUID();
    const clusterId = await readyCluster(sub, 'rg-ea', 'broken');
    h.cs.admin.setDurations({ externalAuthMs: 60_000 });
    try {
      const create = await h.frontend.createExternalAuth(sub, 'rg-ea', 'broken', 'entra');
      await waitForStatus(h, create, 'Provisioning');
      h.cs.admin.failExternalAuth(clusterId, 'entra', { message: 'issuer https://login.example.com unreachable' });
      expect(await h.terminal(create)).toBe('Failed');
      expect((await readOperation(h, create))?.error).toMatchObject({ message: 'issuer https://login.example.com unreachable' });
    } finally {
      h.cs.admin.setDurations({ externalAuthMs: 1000 });
    }
  });

  it('an external auth awaiting its client secret ends the Create Succeeded', async () => {
    const sub = randomUUID();
    const clusterId = await readyCluster(sub, 'rg-ea', 'secretless');
    h.cs.admin.setDurations({ externalAuthMs: 60_000 });
    try {
      const create = await h.frontend.createExternalAuth(sub, 'rg-ea', 'secretless', 'entra');
      await waitForStatus(h, create, 'Provisioning');
      h.cs.admin.awaitExternalAuthSecret(clusterId, 'entra');
      expect(await h.terminal(create)).toBe('Succeeded');
      expect((await cs.getExternalAuth(clusterId, 'entra')).status?.state.value).toBe('awaiting_secret');
    } finally {
      h.cs.admin.setDurations({ externalAuthMs: 1000 });
    }
  });
});

import { randomUUID } from 'crypto';
import { Harness, cliEnv, readOperation, startHarness, waitForStatus } from '../helpers/opstream-harness';
import { runCli } from '../helpers/cli';
import { waitFor } from '../helpers/wait-for';
import { ClustersServiceClient } from '../../src/clusters-service';

/**
 * The statuses ARM reads tell the truth, through the local servers: a Create is Provisioning from
 * the moment Clusters Service took it until it is done; a credential request or revocation is
 * decided by its own processor from Clusters Service (never ended with the cluster's outcome); an
 * operation no processor handles is set aside at once (never left to its deadline).
 */
describe('operation statuses tell ARM the truth', () => {
  let h: Harness;
  const tenant = randomUUID();

  beforeAll(async () => {
    // An install of seconds, and a first status check that would land after it (the follow's ceiling):
    // only the write at dispatch can show Provisioning in between.
    h = await startHarness({
      csDurations: { installingMs: 4000 },
      settings: { 'follow.initialDelayMs': 3000, 'follow.maxDelayMs': 8000 },
    });
  });
  afterAll(() => h.close());

  it('a Create is Provisioning while Clusters Service installs, then Succeeded', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const op = await h.frontend.createCluster(sub, 'rg-status', 'installing-for-seconds');
    const provisioning = await waitForStatus(h, op, 'Provisioning');
    const csId = String(provisioning.internalId).split('/').pop();
    // Seen while CS still installs: Provisioning says the work began, not that it ended.
    expect(h.cs.admin.clusters().find((c) => c.id === csId)?.state).not.toBe('ready');
    const { resource } = await h.database
      .container('Resources')
      .item(op.resourceDocId, op.partitionKey)
      .read<{ provisioningState: string }>();
    expect(resource?.provisioningState).toBe('Provisioning');
    expect(await h.terminal(op)).toBe('Succeeded');
  });

  it('a credential request ends Succeeded with exactly one credential issued, then a revocation revokes it, the cluster untouched', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const create = await h.frontend.createCluster(sub, 'rg-cred', 'at-rest');
    expect(await h.terminal(create)).toBe('Succeeded');
    const clusterId =
      String((await readOperation(h, create))?.internalId)
        .split('/')
        .pop() ?? '';
    const cs = new ClustersServiceClient({ baseUrl: h.cs.url });

    const request = await h.frontend.requestCredential(sub, 'rg-cred', 'at-rest');
    expect(await h.terminal(request)).toBe('Succeeded');
    const credentials = await cs.listBreakGlassCredentials(clusterId);
    expect(credentials.map((c) => c.status)).toEqual(['issued']);
    expect((await readOperation(h, request))?.internalId).toBe(credentials[0]?.href);
    // explain reads the credential's state from Clusters Service, never its kubeconfig.
    const explained = await runCli(['explain', request.operationId, '--json'], cliEnv(h));
    expect(explained.code).toBe(0);
    expect(JSON.parse(explained.stdout).clustersService).toMatchObject({ kind: 'breakGlassCredential', found: true, state: 'issued' });
    expect(explained.stdout).not.toMatch(/kubeconfig|apiVersion: v1/);

    const revoke = await h.frontend.revokeCredentials(sub, 'rg-cred', 'at-rest');
    expect(await h.terminal(revoke)).toBe('Succeeded');
    expect((await cs.listBreakGlassCredentials(clusterId)).map((c) => c.status)).toEqual(['revoked']);
    // Neither took the cluster over: its Resource is as the Create left it.
    const { resource } = await h.database
      .container('Resources')
      .item(create.resourceDocId, create.partitionKey)
      .read<{ provisioningState: string; activeOperationId: string }>();
    expect(resource).toMatchObject({ provisioningState: 'Succeeded', activeOperationId: '' });
  });

  it('a credential request Clusters Service fails ends Failed with its reason', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const create = await h.frontend.createCluster(sub, 'rg-cred', 'refusing');
    expect(await h.terminal(create)).toBe('Succeeded');
    const clusterId =
      String((await readOperation(h, create))?.internalId)
        .split('/')
        .pop() ?? '';
    h.cs.admin.failNextCredentialRequests(clusterId);
    const request = await h.frontend.requestCredential(sub, 'rg-cred', 'refusing');
    expect(await h.terminal(request)).toBe('Failed');
    expect(await readOperation(h, request)).toMatchObject({
      status: 'Failed',
      error: { message: 'Failed to provision cluster credential' },
    });
  });

  /** A subscription with a cluster at rest and one issued credential: the cluster's CS id. */
  async function clusterWithCredential(sub: string, name: string): Promise<string> {
    await h.frontend.registerSubscription(sub, tenant);
    const create = await h.frontend.createCluster(sub, 'rg-revoke', name);
    expect(await h.terminal(create)).toBe('Succeeded');
    expect(await h.terminal(await h.frontend.requestCredential(sub, 'rg-revoke', name))).toBe('Succeeded');
    return (
      String((await readOperation(h, create))?.internalId)
        .split('/')
        .pop() ?? ''
    );
  }

  it('a revocation Clusters Service reports failed ends Failed, saying so', async () => {
    const sub = randomUUID();
    const clusterId = await clusterWithCredential(sub, 'revoke-fails');
    h.cs.admin.failNextRevocation(clusterId);
    const revoke = await h.frontend.revokeCredentials(sub, 'rg-revoke', 'revoke-fails');
    expect(await h.terminal(revoke)).toBe('Failed');
    expect((await readOperation(h, revoke))?.error).toMatchObject({ message: 'Failed to revoke cluster credential' });
  });

  it('a revocation Clusters Service refuses ends Failed with its error', async () => {
    const sub = randomUUID();
    await clusterWithCredential(sub, 'revoke-refused');
    h.cs.admin.addFault({ kind: 'error', endpoint: 'DELETE /clusters/{id}/break_glass_credentials', status: 400, times: 1 });
    const revoke = await h.frontend.revokeCredentials(sub, 'rg-revoke', 'revoke-refused');
    expect(await h.terminal(revoke)).toBe('Failed');
    expect((await readOperation(h, revoke))?.error).toMatchObject({
      code: 'InvalidRequestContent',
      message: expect.stringContaining('injected fault: 400'),
    });
  });

  it('an operation no processor handles is set aside as unsupported at once, with no call to Clusters Service', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const create = await h.frontend.createCluster(sub, 'rg-odd', 'with-pool');
    expect(await h.terminal(create)).toBe('Succeeded');
    const pool = await h.frontend.createNodePool(sub, 'rg-odd', 'with-pool', 'np1');
    expect(await h.terminal(pool)).toBe('Succeeded');
    const callsBefore = h.cs.admin.counters().reduce((n, c) => n + c.count, 0);
    // A revocation on a node pool: schema-valid, but nothing handles it.
    const id = randomUUID();
    await h.frontend.writeRawOperation({
      id,
      partitionKey: sub.toLowerCase(),
      tenantId: tenant,
      clientId: randomUUID(),
      request: 'RevokeCredentials',
      externalId: pool.externalId,
      internalId: '',
      operationId: `/subscriptions/${sub}/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/${id}`,
      startTime: new Date().toISOString(),
      lastTransitionTime: new Date().toISOString(),
      status: 'Accepted',
    });
    const dead = await waitFor(
      async () => {
        const { resources } = await h.database
          .container('DeadLetters')
          .items.query({ query: 'SELECT * FROM c WHERE c.source.id = @id', parameters: [{ name: '@id', value: id }] })
          .fetchAll();
        return resources[0] as { reason: string; error: { message: string } } | undefined;
      },
      { timeoutMs: 30_000, describe: () => `the dead letter of ${id}` },
    );
    expect(dead.reason).toBe('unsupported');
    expect(dead.error.message).toMatch(
      /^no processor handles RevokeCredentials on Microsoft\.RedHatOpenShift\/hcpOpenShiftClusters\/nodePools; /,
    );
    const { resource: op } = await h.database.container('Operations').item(id, sub.toLowerCase()).read<{ status: string }>();
    expect(op?.status).toBe('Accepted');
    expect(h.cs.admin.counters().reduce((n, c) => n + c.count, 0)).toBe(callsBefore);
  });
});

import { randomUUID } from 'crypto';
import { Harness, readOperation, startHarness, waitForStatus } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/**
 * The statuses ARM reads tell the truth, through the local servers: a Create is Provisioning from
 * the moment Clusters Service took it until it is done, and an operation no processor handles is
 * set aside at once (never ended with the cluster's outcome, never left to its deadline).
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

  it('a credential request on a cluster at rest, written as an ARO-HCP frontend writes it, is set aside as unsupported at once', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const create = await h.frontend.createCluster(sub, 'rg-cred', 'at-rest');
    expect(await h.terminal(create)).toBe('Succeeded');
    const callsBefore = h.cs.admin.counters().reduce((n, c) => n + c.count, 0);
    const cluster = await readOperation(h, create);
    // An Operation on the existing cluster; the Resource is left as it is.
    const id = randomUUID();
    await h.frontend.writeRawOperation({
      id,
      partitionKey: sub.toLowerCase(),
      tenantId: tenant,
      clientId: randomUUID(),
      request: 'RequestCredential',
      externalId: create.externalId,
      internalId: cluster?.internalId,
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
    expect(dead.error.message).toMatch(/^no processor handles RequestCredential on Microsoft\.RedHatOpenShift\/hcpOpenShiftClusters; /);
    const { resource: op } = await h.database.container('Operations').item(id, sub.toLowerCase()).read<{ status: string }>();
    expect(op?.status).toBe('Accepted');
    expect(h.cs.admin.counters().reduce((n, c) => n + c.count, 0)).toBe(callsBefore);
  });
});

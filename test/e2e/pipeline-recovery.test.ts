import { randomUUID } from 'crypto';
import { clusterArmId, operationStatusId, resourceDocumentId } from '@opstream/frontend-simulator';
import { ClustersServiceClient, azureFields } from '../../src/clusters-service';
import { Harness, startHarness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/** Documents left half-written by a crash (ours or the frontend's) are repaired, not failed. */
describe('pipeline: recovery from half-written state', () => {
  let h: Harness;
  const tenant = randomUUID();
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  function documents(sub: string, name: string, request: 'Create' | 'Delete' = 'Create') {
    const armId = clusterArmId(sub, 'rg-rec', name);
    const opId = randomUUID();
    const now = new Date().toISOString();
    const status = request === 'Delete' ? 'Deleting' : 'Accepted';
    return {
      armId,
      opId,
      operation: {
        id: opId,
        partitionKey: sub,
        request,
        externalId: armId,
        internalId: '',
        status,
        startTime: now,
        lastTransitionTime: now,
        operationId: operationStatusId(sub, 'eastus', opId),
        notificationUri: `${h.receiver.url}/notify/${opId}`,
      },
      resource: {
        id: resourceDocumentId(armId),
        partitionKey: sub,
        resourceId: armId,
        resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters',
        internalId: '',
        activeOperationId: opId,
        provisioningState: status,
        properties: { version: '4.18', region: 'eastus', managedResourceGroupName: `mrg-${name}` },
      },
    };
  }

  it('an Operation whose Resource is not written yet waits for it instead of failing', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const d = documents(sub, 'late-resource');
    await h.database.container('Operations').items.create(d.operation);
    await waitFor(() => h.instances[0].pipeline.scheduled().some((e) => e.id === d.opId), { describe: () => 'the operation to be parked' });
    await h.database.container('Resources').items.create(d.resource);
    const n = await h.receiver.waitForNotification(d.opId, 30_000);
    expect((n.body as { status: string }).status).toBe('Succeeded');
  });

  it('a crash between the Resource and Operation CS-id writes is repaired from the Resource, without a second CS create', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const d = documents(sub, 'half-dispatched');
    const cs = new ClustersServiceClient({ baseUrl: h.cs.url });
    const created = await cs.createCluster({
      id: 'feedc0de0000000000000000000000aa',
      name: 'half-dispatched',
      region: { id: 'eastus' },
      version: { id: '4.18' },
      azure: azureFields({
        subscriptionId: sub,
        resourceGroupName: 'rg-rec',
        resourceName: 'half-dispatched',
        tenantId: tenant,
        managedResourceGroupName: 'mrg-half-dispatched',
      }),
    });
    const href = `/api/aro_hcp/v1alpha1/clusters/${created.id}`;
    const postsBefore = h.cs.admin.count('POST /clusters');
    await h.database.container('Resources').items.create({ ...d.resource, internalId: href, pendingInternalId: href });
    await h.database.container('Operations').items.create(d.operation);
    const n = await h.receiver.waitForNotification(d.opId, 30_000);
    expect((n.body as { status: string }).status).toBe('Succeeded');
    expect(h.cs.admin.count('POST /clusters')).toBe(postsBefore);
    const { resource: op } = await h.database.container('Operations').item(d.opId, sub).read();
    expect(op.internalId).toBe(href);
  });

  it('a crash after the CS create but before any Cosmos write adopts the cluster found by Azure identity', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const d = documents(sub, 'orphan-in-cs');
    const cs = new ClustersServiceClient({ baseUrl: h.cs.url });
    const created = await cs.createCluster({
      name: 'orphan-in-cs',
      region: { id: 'eastus' },
      version: { id: '4.18' },
      azure: azureFields({
        subscriptionId: sub,
        resourceGroupName: 'rg-rec',
        resourceName: 'orphan-in-cs',
        tenantId: tenant,
        managedResourceGroupName: 'mrg-orphan-in-cs',
      }),
    });
    await h.database
      .container('Resources')
      .items.create({ ...d.resource, pendingInternalId: '/api/aro_hcp/v1alpha1/clusters/someotherid' });
    await h.database.container('Operations').items.create(d.operation);
    await h.receiver.waitForNotification(d.opId, 30_000);
    const { resource } = await h.database.container('Resources').item(d.resource.id, sub).read();
    expect(resource.internalId).toBe(`/api/aro_hcp/v1alpha1/clusters/${created.id}`);
    expect(h.cs.admin.clusters().filter((c) => c.name === 'orphan-in-cs')).toHaveLength(1);
  });

  it('a crash after the terminal Resource write-back but before the Operation write finishes the Operation', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const d = documents(sub, 'written-back');
    await h.database.container('Resources').items.create({
      ...d.resource,
      activeOperationId: '',
      provisioningState: 'Succeeded',
      internalId: '/api/aro_hcp/v1alpha1/clusters/gone',
    });
    await h.database
      .container('Operations')
      .items.create({ ...d.operation, status: 'Provisioning', internalId: '/api/aro_hcp/v1alpha1/clusters/gone' });
    const n = await h.receiver.waitForNotification(d.opId, 30_000);
    expect((n.body as { status: string }).status).toBe('Succeeded');
  });

  it('a Delete whose Resource is already gone succeeds', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const d = documents(sub, 'already-gone', 'Delete');
    await h.database.container('Operations').items.create(d.operation);
    const n = await h.receiver.waitForNotification(d.opId, 30_000);
    expect((n.body as { status: string }).status).toBe('Succeeded');
  });
});

import { randomUUID } from 'crypto';
import { clusterArmId, resourceDocumentId } from '@opstream/frontend-simulator';
import { atTerminal, clusterDocuments, clustersNamed, readDocument, withoutSystemFields } from '../helpers/guarantees';
import { Harness, startHarness } from '../helpers/opstream-harness';

/**
 * Guarantee: a Resource document is found by its `resourceId` (the ARM id, any casing) when the
 * frontend names it otherwise than the derived id: a Create gets its cluster, a Delete removes it
 * and the document, and opstream never writes a second Resource under the derived id.
 */
describe('guarantees: a Resource named otherwise by the frontend', () => {
  let h: Harness;
  const tenant = randomUUID();
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('a Create and then a Delete written raw, the Resource id not the derived one and its resourceId in another casing: cluster created, Succeeded, then deleted with its document', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    const name = `Named-Otherwise-${randomUUID().slice(0, 6)}`;
    const armId = clusterArmId(sub, 'RG-Lookup', name);
    const docId = `frontend-${randomUUID()}`;
    const resources = h.database.container('Resources');
    const operations = h.database.container('Operations');

    // Create: the Resource under the frontend's own id, then the Operation (lower-cased ARM id).
    const create = clusterDocuments(h, { sub, rg: 'rg-lookup', name, request: 'Create', armId: armId.toLowerCase(), resourceDocId: docId });
    await resources.items.create({ ...create.resource, resourceId: armId });
    await operations.items.create(create.operation);
    const created = await h.receiver.waitForNotification(create.opId, 60_000);
    expect(created.body).toMatchObject({ status: 'Succeeded' });
    expect(await readDocument(h, 'Operations', create.opId, sub)).toMatchObject({ status: 'Succeeded' });

    const clusters = clustersNamed(h, sub, 'rg-lookup', name);
    expect(clusters.map((c) => c.state)).toEqual(['ready']);
    const href = `/api/aro_hcp/v1alpha1/clusters/${clusters[0].id}`;
    const resource = await readDocument(h, 'Resources', docId, sub);
    expect(resource).toMatchObject({
      id: docId,
      resourceId: armId,
      internalId: href,
      provisioningState: 'Succeeded',
      activeOperationId: '',
    });
    expect(await readDocument(h, 'Resources', resourceDocumentId(armId), sub)).toBeUndefined();

    // Delete: the frontend rewrites its Resource and writes the Operation with the recorded CS id.
    const del = clusterDocuments(h, { sub, rg: 'rg-lookup', name, request: 'Delete', armId: armId.toLowerCase(), resourceDocId: docId });
    const deleted = atTerminal(
      h,
      (e) => e.operationId === del.opId,
      () => clustersNamed(h, sub, 'rg-lookup', name),
    );
    deleted.catch(() => undefined);
    await resources.items.upsert({ ...withoutSystemFields(resource ?? {}), activeOperationId: del.opId, provisioningState: 'Deleting' });
    await operations.items.create({ ...del.operation, internalId: href });
    const seen = await deleted;
    expect({ status: seen.status, left: seen.snapshot.map((c) => c.id) }).toEqual({ status: 'Succeeded', left: [] });
    expect((await h.receiver.waitForNotification(del.opId, 10_000)).body).toMatchObject({ status: 'Succeeded' });
    expect(await readDocument(h, 'Resources', docId, sub)).toBeUndefined();
    expect(await readDocument(h, 'Resources', resourceDocumentId(armId), sub)).toBeUndefined();
  });
});

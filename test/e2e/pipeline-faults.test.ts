import { randomUUID } from 'crypto';
import { Harness, readOperation, startHarness, waitForStatus } from '../helpers/opstream-harness';
import { uniqueName, waitFor } from '../helpers/wait-for';

/** What goes wrong in production, reproduced against the local servers. */
describe('pipeline: failures and edge cases', () => {
  let h: Harness;
  const tenant = randomUUID();
  const newSub = async (): Promise<string> => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, tenant);
    return sub;
  };

  beforeAll(async () => {
    // An ARM endpoint failing half the time is retried within a second, not the production minute.
    h = await startHarness({ settings: { 'notifications.retryMaxDelayMs': 1000 } });
  });
  afterAll(() => h.close());
  afterEach(() => {
    h.cs.admin.clearFaults();
    h.cs.admin.clearProvisionFailures();
    h.receiver.setFailureRate(0);
  });

  it('creates exactly one CS cluster per resource when create responses are lost after the cluster exists', async () => {
    const sub = await newSub();
    h.cs.admin.addFault({ kind: 'drop-response', endpoint: 'POST /clusters', rate: 0.6 });
    const names = Array.from({ length: 12 }, (_, i) => `lost-${i}`);
    const ops = await Promise.all(names.map((n) => h.frontend.createCluster(sub, 'rg-lost', n)));
    const statuses = await Promise.all(ops.map((op) => h.terminal(op)));
    expect(statuses).toEqual(names.map(() => 'Succeeded'));
    expect(h.cs.admin.count('POST /clusters', 'dropped')).toBeGreaterThan(0);
    const mine = h.cs.admin.clusters().filter((c) => (c.azure as { subscription_id?: string }).subscription_id === sub);
    expect(mine.map((c) => c.name).sort()).toEqual([...names].sort());
    // The Resource and the Operation carry the id of that one cluster.
    for (const op of ops) {
      const doc = await readOperation(h, op);
      expect(mine.map((c) => `/api/aro_hcp/v1alpha1/clusters/${c.id}`)).toContain(doc?.internalId);
    }
  });

  it('dead-letters a malformed operation and keeps the feed moving', async () => {
    const sub = await newSub();
    const badId = uniqueName('bad');
    await h.frontend.writeRawOperation({ id: badId, partitionKey: sub, request: 'Explode', status: 'Accepted' });
    const good = await h.frontend.createCluster(sub, 'rg-dl', 'after-bad');
    expect(await h.terminal(good)).toBe('Succeeded');
    const dead = await waitFor(async () => {
      const { resources } = await h.database
        .container('DeadLetters')
        .items.query({ query: 'SELECT * FROM c WHERE c.source.id = @id', parameters: [{ name: '@id', value: badId }] })
        .fetchAll();
      return resources[0];
    });
    expect(dead).toMatchObject({ reason: 'validation', source: { container: 'Operations', id: badId }, document: { request: 'Explode' } });
    expect(JSON.stringify(dead.error)).toMatch(/request|externalId|startTime/);
  });

  it('a Delete supersedes a running Create: the Create ends Canceled, the Delete Succeeded', async () => {
    const sub = await newSub();
    h.cs.admin.setDurations({ installingMs: 5_000 });
    try {
      const create = await h.frontend.createCluster(sub, 'rg-sup', 'superseded');
      await waitFor(async () => (await readOperation(h, create))?.internalId);
      const del = await h.frontend.deleteCluster(sub, 'rg-sup', 'superseded');
      expect(await h.terminal(create)).toBe('Canceled');
      expect(await h.terminal(del)).toBe('Succeeded');
      expect((await readOperation(h, create))?.error).toEqual({ code: 'Canceled', message: 'This operation was superseded by another' });
      expect(h.cs.admin.clusters().filter((c) => c.name === 'superseded')).toEqual([]);
    } finally {
      h.cs.admin.setDurations({ installingMs: 80 });
    }
  });

  it('fails a create whose inflight checks failed, with every failed check in the error', async () => {
    const sub = await newSub();
    h.cs.admin.addProvisionFailure({
      code: 'OCM4001',
      clusterName: 'checks-fail',
      inflightChecks: [
        { name: 'egress', status: 'failed', error: 'egress to quay.io blocked' },
        { name: 'dns', status: 'failed', error: 'private DNS zone missing' },
        { name: 'subnet', status: 'passed' },
      ],
    });
    const op = await h.frontend.createCluster(sub, 'rg-err', 'checks-fail');
    expect(await h.terminal(op)).toBe('Failed');
    const doc = await readOperation(h, op);
    expect(doc?.error).toEqual({
      code: 'MultipleErrorsOccurred',
      message: 'Cluster provisioning failed due to multiple errors',
      details: [
        { code: 'InternalServerError', message: 'egress to quay.io blocked' },
        { code: 'InternalServerError', message: 'private DNS zone missing' },
      ],
    });
    const { resource } = await h.database.container('Resources').item(op.resourceDocId, op.partitionKey).read();
    expect(resource).toMatchObject({ provisioningState: 'Failed', activeOperationId: '' });
  });

  it('fails a create clearly when the subscription has no tenant', async () => {
    const sub = randomUUID(); // never registered
    const op = await h.frontend.createCluster(sub, 'rg-nosub', 'orphan');
    expect(await h.terminal(op)).toBe('Failed');
    expect((await readOperation(h, op))?.error).toMatchObject({ code: 'InvalidSubscriptionState', message: expect.stringContaining(sub) });
  });

  it('fails a node pool operation that Clusters Service reports in error', async () => {
    const sub = await newSub();
    const cluster = await h.frontend.createCluster(sub, 'rg-np', 'np-err');
    expect(await h.terminal(cluster)).toBe('Succeeded');
    h.cs.admin.setDurations({ installingMs: 5_000 });
    try {
      const np = await h.frontend.createNodePool(sub, 'rg-np', 'np-err', 'bad');
      const href = String((await waitFor(async () => (await readOperation(h, np))?.internalId)) ?? '');
      const [, clusterId] = /clusters\/([^/]+)\//.exec(href) ?? [];
      h.cs.admin.failNodePool(clusterId, 'bad', { message: 'quota exceeded for Standard_D8s_v3' });
      expect(await h.terminal(np)).toBe('Failed');
      expect((await readOperation(h, np))?.error).toEqual({ code: 'InternalServerError', message: 'quota exceeded for Standard_D8s_v3' });
    } finally {
      h.cs.admin.setDurations({ installingMs: 80 });
    }
  });

  it('fails an operation still running past its deadline, with the last state reported', async () => {
    const sub = await newSub();
    h.cs.admin.setDurations({ installingMs: 60_000 });
    try {
      const op = await h.frontend.createCluster(sub, 'rg-late', 'too-slow');
      // Shorten the deadline the frontend wrote, as if an hour had passed.
      await waitFor(async () => (await readOperation(h, op))?.status === 'Provisioning');
      const resources = h.database.container('Resources');
      const { resource } = await resources.item(op.resourceDocId, op.partitionKey).read();
      await resources.items.upsert({ ...resource, createOperationCompletionDeadline: new Date(Date.now() - 1000).toISOString() });
      // A frontend writes the Resource only with an Operation (docs/frontend-contract.md); that write is
      // what tells opstream its copy of the Resource is stale. Here: the Operation rewritten as it is.
      const operations = h.database.container('Operations');
      await waitFor(async () => {
        const { resource: current } = await operations.item(op.operationId, op.partitionKey).read<{ _etag: string }>();
        if (!current) return false;
        const replaced = await operations
          .item(op.operationId, op.partitionKey)
          .replace(current, { accessCondition: { type: 'IfMatch', condition: current._etag } })
          .then(() => true)
          .catch(() => false);
        return replaced;
      });
      const doc = await waitForStatus(h, op, 'Failed');
      expect(doc.error).toEqual({
        code: 'InternalServerError',
        message: expect.stringMatching(
          /^The provisioning did not complete before its deadline; last state reported: Installation is in progress$/,
        ),
      });
    } finally {
      h.cs.admin.setDurations({ installingMs: 80 });
    }
  });

  it('keeps going through Clusters Service 5xx answers and an ARM endpoint that fails half the time', async () => {
    const sub = await newSub();
    h.cs.admin.addFault({ kind: 'error', endpoint: 'GET /clusters/{id}/status', status: 503, rate: 0.3 });
    h.receiver.setFailureRate(0.5);
    const ops = await Promise.all([0, 1, 2, 3, 4].map((i) => h.frontend.createCluster(sub, 'rg-5xx', `flaky-${i}`)));
    expect(await Promise.all(ops.map((op) => h.terminal(op)))).toEqual(['Succeeded', 'Succeeded', 'Succeeded', 'Succeeded', 'Succeeded']);
    for (const op of ops) {
      await waitFor(async () => (await readOperation(h, op))?.notificationUri === undefined);
      expect(h.receiver.countFor(op.operationId)).toBe(1);
    }
  });
});

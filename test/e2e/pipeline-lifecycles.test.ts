import { runWorkload } from '@opstream/frontend-simulator';
import { Harness, startHarness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/** Hundreds of mixed operations over several subscriptions, start to finish, through real HTTP and the real SDK. */
describe('pipeline: full lifecycles', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('drives 240 create/update/delete operations of clusters and node pools to Succeeded, notifying ARM once each', async () => {
    const result = await runWorkload({
      frontend: h.frontend,
      // Five frontend writers per subscription: with ten, a frontend write could wait out the simulator's
      // 15 s lock timeout on a saturated machine (a cluster create takes the subscription lock four times: its CS id chosen, recorded, Provisioning, Succeeded).
      subscriptions: 8,
      clustersPerSubscription: 5,
      seed: 7,
      concurrency: 40,
      waitForTerminal: (op) => h.terminal(op, 120_000),
    });
    expect(result.unexpected).toEqual([]);
    expect(result.operations).toBe(240);
    expect(result.byStatus).toEqual({ Succeeded: 240 });

    // ARM told once per operation (the notificationUri is cleared after delivery).
    const perOperation = new Map<string, number>();
    for (const n of h.receiver.received) perOperation.set(n.operation, (perOperation.get(n.operation) ?? 0) + 1);
    expect(perOperation.size).toBe(240);
    expect([...perOperation.values()].filter((c) => c !== 1)).toEqual([]);
    await waitFor(async () => {
      const { resources } = await h.database
        .container('Operations')
        .items.query('SELECT VALUE COUNT(1) FROM c WHERE IS_DEFINED(c.notificationUri)')
        .fetchAll();
      return resources[0] === 0;
    });

    // Deleted resources are gone, in Cosmos and in Clusters Service.
    const { resources: left } = await h.database.container('Resources').items.readAll().fetchAll();
    expect(left).toEqual([]);
    expect(h.cs.admin.clusters()).toEqual([]);
    // One CS cluster per resource: 40 creates, never more.
    expect(h.cs.admin.count('POST /clusters', 201)).toBe(40);

    // Cluster status is read in batches (search by id list), never one cluster at a time.
    expect(h.cs.admin.count('GET /clusters/{id}/status')).toBe(0);
    const firstCheck = await h.instances[0].metrics.registry.getSingleMetricAsString('opstream_follow_first_check_delay_seconds');
    for (const kind of ['hcpOpenShiftClusters/Create', 'hcpOpenShiftClusters/Delete', 'nodePools/Create', 'nodePools/Update'])
      expect(firstCheck).toContain(`kind="${kind}"`);

    // Every terminal Operation and the lifecycle of one of them look as ARM expects.
    const { resources: ops } = await h.database.container('Operations').items.readAll().fetchAll();
    expect(ops).toHaveLength(240);
    for (const op of ops) {
      expect(op.status).toBe('Succeeded');
      expect(op.error).toBeUndefined();
      expect(Date.parse(op.lastTransitionTime)).toBeGreaterThanOrEqual(Date.parse(op.startTime));
    }
    // Every Cosmos request the SDK sent was counted by kind.
    const cosmosRequests = await h.instances[0].metrics.registry.getSingleMetricAsString('opstream_cosmos_requests_total');
    for (const kind of ['changefeed', 'changefeed-304', 'write', 'point-read', 'query']) expect(cosmosRequests).toContain(`kind="${kind}"`);

    const body = h.receiver.received[0].body as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'Succeeded', name: expect.any(String), id: expect.stringContaining('/hcpOperationStatuses/') });
    // 240 operations on a 2-core CI machine shared with the other suites: 15 s alone, over 60 s seen in CI.
  }, 180_000);
});

import { randomUUID } from 'crypto';
import type { Database } from '@azure/cosmos';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import {
  FrontendSimulator,
  startNotificationReceiver,
  type NotificationReceiver,
  type WrittenOperation,
} from '@opstream/frontend-simulator';
import { startBaseline, type Baseline } from '../../../bench/baseline';
import { nextTick } from '../../../bench/baseline/poller';
import { createLogger } from '../../../src/logging/logger';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';

/**
 * The polling baseline of the benchmark, with its intervals shrunk (scan 600 ms, pass 150 ms)
 * against the emulator, the CS simulator and the frontend simulator: operations reach the right
 * terminal states, ARM is told once each, and nothing happens to a new operation before a scan.
 */
const SCAN_MS = 600;
const PASS_MS = 150;
const FAST_CS = { pendingMs: 40, validatingMs: 40, installingMs: 120, updatingMs: 120, deleteStartMs: 40, uninstallingMs: 120 };

describe('polling baseline (bench/baseline)', () => {
  let cosmos: TestCosmos;
  let database: Database;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;
  let frontend: FrontendSimulator;
  let baseline: Baseline;
  const calls: Array<{ endpoint: string; path: string; query: string; at: number }> = [];
  const tenant = randomUUID();

  const terminal = async (op: WrittenOperation): Promise<{ status: string; error?: { code: string } }> =>
    (await receiver.waitForNotification(op.operationId, 30_000)).body as { status: string; error?: { code: string } };
  const readDoc = async (container: string, id: string, pk: string): Promise<Record<string, unknown> | undefined> =>
    (await database.container(container).item(id, pk).read<Record<string, unknown>>()).resource ?? undefined;
  const newSub = async (): Promise<string> => {
    const sub = randomUUID();
    await frontend.registerSubscription(sub, tenant);
    return sub;
  };

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const databaseId = uniqueName('baseline');
    cs = await startClustersServiceSimulator({
      port: 0,
      durations: FAST_CS,
      onCall: (c) => calls.push({ endpoint: c.endpoint, path: c.path, query: c.query.get('search') ?? '', at: c.receivedAt }),
    });
    receiver = await startNotificationReceiver();
    baseline = await startBaseline(
      {
        cosmosEndpoint: cosmos.emu.endpoint,
        cosmosKey: cosmos.emu.key,
        database: databaseId,
        createContainers: true,
        clustersServiceUrl: cs.url,
        scanIntervalMs: SCAN_MS,
        passIntervalMs: PASS_MS,
        lockTtlSeconds: 5,
        owner: 'baseline-test',
        allowLoopbackNotifications: true,
      },
      { cosmosClient: cosmos.client, logger: createLogger({ silent: process.env.OPSTREAM_TEST_LOGS !== '1', level: 'debug' }) },
    );
    database = cosmos.client.database(databaseId);
    await waitFor(() => baseline.stats.scans > 0, { describe: () => 'the first scan (creates the containers)' });
    frontend = new FrontendSimulator({ database, notificationBaseUrl: receiver.url });
  });

  afterAll(async () => {
    await baseline?.stop();
    await receiver?.close();
    await cs?.close();
    await cosmos?.close();
  });

  afterEach(() => cs.admin.clearProvisionFailures());

  it('takes a cluster and its node pool through create, update and delete to Succeeded, ARM told once each', async () => {
    const sub = await newSub();
    const steps: Array<[string, () => Promise<WrittenOperation>]> = [
      ['create cluster', () => frontend.createCluster(sub, 'rg-life', 'life')],
      ['create node pool', () => frontend.createNodePool(sub, 'rg-life', 'life', 'np1', { replicas: 2 })],
      ['update node pool', () => frontend.updateNodePool(sub, 'rg-life', 'life', 'np1', { replicas: 3 })],
      ['update cluster', () => frontend.updateCluster(sub, 'rg-life', 'life', { version: '4.19' })],
      ['delete node pool', () => frontend.deleteNodePool(sub, 'rg-life', 'life', 'np1')],
      ['delete cluster', () => frontend.deleteCluster(sub, 'rg-life', 'life')],
    ];
    const ops: WrittenOperation[] = [];
    for (const [name, issue] of steps) {
      const op = await issue();
      ops.push(op);
      const body = await terminal(op);
      expect([name, body.status]).toEqual([name, 'Succeeded']);
    }
    // Creates recorded the CS href on the Operation; deletes removed the Resource documents.
    const created = await readDoc('Operations', ops[0].operationId, ops[0].partitionKey);
    expect(created?.internalId).toMatch(/^\/api\/aro_hcp\/v1alpha1\/clusters\/[0-9a-f]{32}$/);
    expect(created?.notificationUri).toBeUndefined();
    expect(await readDoc('Resources', ops[4].resourceDocId, ops[4].partitionKey)).toBeUndefined();
    expect(await readDoc('Resources', ops[5].resourceDocId, ops[5].partitionKey)).toBeUndefined();
    expect(ops.map((op) => receiver.countFor(op.operationId))).toEqual([1, 1, 1, 1, 1, 1]);
    expect(cs.admin.clusters().filter((c) => (c.azure as { subscription_id?: string }).subscription_id === sub)).toEqual([]);
    // The update went to CS as a PATCH, the delete as a DELETE.
    expect(calls.some((c) => c.endpoint === 'PATCH /clusters/{id}/node_pools/{nodePool}')).toBe(true);
    expect(calls.some((c) => c.endpoint === 'DELETE /clusters/{id}')).toBe(true);
  });

  it('fails a create whose cluster ends in error, with the CS provision error', async () => {
    const sub = await newSub();
    cs.admin.addProvisionFailure({ code: 'OCM3001', message: 'quota exceeded', clusterName: 'doomed' });
    const op = await frontend.createCluster(sub, 'rg-fail', 'doomed');
    const body = await terminal(op);
    expect(body).toMatchObject({ status: 'Failed', error: { code: 'OCM3001', message: 'quota exceeded' } });
    const resource = await readDoc('Resources', op.resourceDocId, op.partitionKey);
    expect(resource).toMatchObject({ provisioningState: 'Failed', activeOperationId: '' });
  });

  it('handles many clusters of several subscriptions in one serial pass, one CS cluster each', async () => {
    const subs = [await newSub(), await newSub(), await newSub()];
    const ops = await Promise.all(subs.flatMap((sub) => [0, 1, 2].map((i) => frontend.createCluster(sub, 'rg-many', `many-${i}`))));
    const bodies = await Promise.all(ops.map(terminal));
    expect(bodies.map((b) => b.status)).toEqual(ops.map(() => 'Succeeded'));
    const mine = cs.admin.clusters().filter((c) => subs.includes((c.azure as { subscription_id?: string }).subscription_id ?? ''));
    expect(mine).toHaveLength(9);
  });

  it('does not touch a new operation before a scan that started after the write lists it', async () => {
    const sub = await newSub();
    // Before the request: the write commits somewhere between this and the frontend's acknowledgement
    // (op.writtenAt), and a scan that starts in between may already list it.
    const issuedAt = Date.now();
    const op = await frontend.createCluster(sub, 'rg-late', 'late');
    await terminal(op);
    // The create dispatch starts with a search by Azure identity naming the cluster.
    const first = calls.find((c) => c.at >= issuedAt && c.endpoint === 'GET /clusters' && c.query.includes(`'late'`));
    expect(first).toBeDefined();
    const scanAfterIssue = baseline.stats.recentScans.find((t) => t >= issuedAt);
    expect(scanAfterIssue).toBeDefined();
    expect(first?.at).toBeGreaterThanOrEqual(scanAfterIssue ?? Infinity);
  });

  it('cancels a create superseded by a delete, and the delete succeeds', async () => {
    const sub = await newSub();
    cs.admin.setDurations({ installingMs: 4_000 });
    try {
      const create = await frontend.createCluster(sub, 'rg-sup', 'sup');
      await waitFor(async () => (await readDoc('Operations', create.operationId, create.partitionKey))?.internalId, {
        describe: () => 'the create dispatched',
      });
      const del = await frontend.deleteCluster(sub, 'rg-sup', 'sup');
      const [c, d] = await Promise.all([terminal(create), terminal(del)]);
      expect(c).toMatchObject({ status: 'Canceled', error: { code: 'Canceled' } });
      expect(d.status).toBe('Succeeded');
      expect(await readDoc('Resources', del.resourceDocId, del.partitionKey)).toBeUndefined();
    } finally {
      cs.admin.setDurations(FAST_CS);
    }
  });
});

describe('fixed-rate ticks', () => {
  it('drops the ticks missed while a step ran long', () => {
    expect(nextTick(1000, 100, 1000)).toBe(1100);
    expect(nextTick(1000, 100, 1099)).toBe(1100);
    expect(nextTick(1000, 100, 1350)).toBe(1400);
  });
});

import { randomUUID } from 'node:crypto';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import {
  FrontendSimulator,
  startNotificationReceiver,
  type NotificationReceiver,
  type WrittenOperation,
} from '@opstream/frontend-simulator';
import { defaultProcessors } from '../../processors/registry';
import { startOpstream, type Opstream } from '../../src/app/opstream-app';
import { ensureContainers } from '../../src/cosmos';
import { createLogger } from '../../src/logging/logger';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { FAST_CS_DURATIONS, testConfig } from '../helpers/test-config';
import { uniqueName, waitFor } from '../helpers/wait-for';

const MAX_SCHEDULED = 20;
const OPERATIONS = 120;

/**
 * A relist respects the queue's bound: an instance that takes over ranges holding far more active
 * operations than `pipeline.maxScheduled` queues at most that many, and goes on where it stopped as
 * operations end, until every one is done. The operations are written before the instance starts
 * and it reads the change feed from `now`, so only its relists can find them.
 */
describe('relist: the queue bound holds, and the relist resumes where it stopped', () => {
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;
  let app: Opstream | undefined;

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    cs = await startClustersServiceSimulator({ port: 0, durations: FAST_CS_DURATIONS });
    receiver = await startNotificationReceiver();
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await cs?.close();
    await cosmos?.close();
  });

  it(`${OPERATIONS} active creates, maxScheduled ${MAX_SCHEDULED}: never more than ${MAX_SCHEDULED} queued, every one completes`, async () => {
    const databaseId = uniqueName('relist');
    await ensureContainers(cosmos.client, databaseId, { create: true });
    const frontend = new FrontendSimulator({ database: cosmos.client.database(databaseId), notificationBaseUrl: receiver.url });
    const subs = Array.from({ length: 12 }, () => randomUUID());
    for (const sub of subs) await frontend.registerSubscription(sub, randomUUID());
    const ops: WrittenOperation[] = [];
    for (let i = 0; i < OPERATIONS; i++) ops.push(await frontend.createCluster(subs[i % subs.length] as string, 'rg', `c-${i}`));

    const config = testConfig(
      { cosmosEndpoint: cosmos.emu.endpoint, cosmosKey: cosmos.emu.key, databaseId, csUrl: cs.url },
      { 'changefeed.startFrom': 'now', 'pipeline.maxScheduled': MAX_SCHEDULED, 'ops.addr': '127.0.0.1:0' },
    );
    const logger = createLogger({ silent: process.env.OPSTREAM_TEST_LOGS !== '1', level: 'debug' });
    const started = await startOpstream(
      { ...config, changefeed: { ...config.changefeed, instanceName: uniqueName('bounded') } },
      { processors: defaultProcessors, logger, opsServer: false },
    );
    app = started;
    // The queue's size right after each operation is offered (the offer is synchronous after the event).
    let peak = 0;
    let offered = 0;
    started.taps.tap('active').subscribe(() => {
      offered++;
      queueMicrotask(() => (peak = Math.max(peak, started.pipeline.scheduled().length)));
    });

    for (const op of ops)
      expect([op.operationId, (await receiver.waitForNotification(op.operationId, 120_000)).body]).toMatchObject([
        op.operationId,
        { status: 'Succeeded' },
      ]);
    expect(peak).toBe(MAX_SCHEDULED);
    expect(offered).toBeGreaterThanOrEqual(OPERATIONS);
    await waitFor(() => started.pipeline.scheduled().length === 0, {
      describe: () => `the queue to drain (has ${started.pipeline.scheduled().length})`,
    });
  });
});

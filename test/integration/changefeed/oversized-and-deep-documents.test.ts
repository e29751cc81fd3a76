import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Database } from '@azure/cosmos';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import {
  clusterArmId,
  FrontendSimulator,
  operationStatusId,
  startNotificationReceiver,
  type NotificationReceiver,
} from '@opstream/frontend-simulator';
import { defaultProcessors } from '../../../processors/registry';
import { startOpstream, type Opstream } from '../../../src/app/opstream-app';
import { EVENTS, type ChangeFeedEvent } from '@opstream/changefeed';
import { createLogger } from '../../../src/logging/logger';
import { jsonByteLength } from '../../../src/util/json-walk';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { FAST_CS_DURATIONS, testConfig } from '../../helpers/test-config';
import { uniqueName, waitFor } from '../../helpers/wait-for';

const MB = 1_000_000;
const MiB = 1024 * 1024;

/**
 * The stalls of issue 11 (defects 4 and 5), end to end through the change feed: invalid Operations of
 * ~2 MB and one nested 127 levels deep (as deep as Cosmos stores) are written into a subscription's range, then a valid Create
 * in the same subscription. The Create must complete, the bad documents be dead-lettered once (or
 * given up when DeadLetters refuses every write), and the range's lease never be released and taken
 * again in a loop.
 */
describe('change feed: oversized and deeply nested documents do not stall their range', () => {
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;
  let database: Database;
  let frontend: FrontendSimulator;
  let app: Opstream;
  const events: ChangeFeedEvent[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    cs = await startClustersServiceSimulator({ port: 0, durations: FAST_CS_DURATIONS });
    receiver = await startNotificationReceiver();
    const databaseId = uniqueName('stall');
    const config = testConfig({ cosmosEndpoint: cosmos.emu.endpoint, cosmosKey: cosmos.emu.key, databaseId, csUrl: cs.url });
    // Every line formatted as in production (JSON, debug level: change-feed events carry documents).
    const stream = new Writable({
      write(chunk, _enc, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    const logger = createLogger({ format: 'json', level: 'debug', stream });
    app = await startOpstream(
      { ...config, changefeed: { ...config.changefeed, instanceName: uniqueName('only') } },
      { processors: defaultProcessors, logger, opsServer: false },
    );
    app.pipeline.processor.events$.subscribe((e) => events.push(e));
    database = cosmos.client.database(databaseId);
    frontend = new FrontendSimulator({ database, notificationBaseUrl: receiver.url });
    await waitFor(() => app.pipeline.processor.ownedLeaseTokens().length === 4, { timeoutMs: 20_000 });
  });
  afterEach(() => cosmos.emu.clearFaults());
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await cs?.close();
    await cosmos?.close();
  });

  async function newSubscription(): Promise<string> {
    const sub = randomUUID();
    await frontend.registerSubscription(sub, randomUUID());
    return sub;
  }

  /** An Operation as the frontend writes it, made invalid by `change`. */
  function badOperation(sub: string, change: (op: Record<string, unknown>) => void): Record<string, unknown> {
    const id = randomUUID();
    const now = new Date().toISOString();
    const op: Record<string, unknown> = {
      id,
      partitionKey: sub,
      request: 'Create',
      externalId: clusterArmId(sub, 'rg', uniqueName('bad')),
      internalId: '',
      operationId: operationStatusId(sub, 'eastus', id),
      startTime: now,
      lastTransitionTime: now,
      status: 'Accepted',
    };
    change(op);
    return op;
  }

  function ofSize(sub: string, bytes: number): Record<string, unknown> {
    // Invalid by its request, with a non-terminal status: a relist lists it again.
    const op = badOperation(sub, (o) => {
      o.request = 'Explode';
      o.padding = '';
    });
    op.padding = 'p'.repeat(bytes - jsonByteLength(op));
    return op;
  }

  function deep(sub: string): Record<string, unknown> {
    return badOperation(sub, (o) => {
      let v: unknown = o.externalId;
      // As deep as Cosmos stores (128 levels with the document itself): past the logger's and the dead letter's bounds.
      for (let i = 0; i < 127; i++) v = { a: v };
      o.externalId = v;
    });
  }

  async function deadLettersOf(ids: string[]): Promise<Array<Record<string, unknown>>> {
    const { resources } = await database
      .container('DeadLetters')
      .items.query<Record<string, unknown>>({
        query: 'SELECT * FROM c WHERE ARRAY_CONTAINS(@ids, c.source.id)',
        parameters: [{ name: '@ids', value: ids }],
      })
      .fetchAll();
    return resources;
  }

  function leaseChurn(since: number): ChangeFeedEvent[] {
    return events.filter(
      (e) => e.at >= since && (e.type === EVENTS.leaseReleased || e.type === EVENTS.leaseLost || e.type === EVENTS.leaseAcquired),
    );
  }

  it('dead-letters 1.9 MB, 2.0 MB, 2 MiB − 512 and depth-127 documents once each, and runs the Create written after them', async () => {
    const since = Date.now();
    const sub = await newSubscription();
    const bad = [ofSize(sub, 1.9 * MB), ofSize(sub, 2.0 * MB), ofSize(sub, 2 * MiB - 512), deep(sub)];
    for (const doc of bad) await frontend.writeRawOperation(doc);
    // A 2.1 MB Operation never reaches the feed: Cosmos (and the emulator) refuse it.
    await expect(frontend.writeRawOperation(ofSize(sub, 2.1 * MB))).rejects.toMatchObject({ code: 413 });
    const good = await frontend.createCluster(sub, 'rg', 'after-the-bad-ones');

    const notified = await receiver.waitForNotification(good.operationId, 60_000);
    expect((notified.body as { status: string }).status).toBe('Succeeded');
    const ids = bad.map((d) => d.id as string);
    const letters = await waitFor(async () => {
      const found = await deadLettersOf(ids);
      return found.length === bad.length ? found : undefined;
    });
    for (const letter of letters) {
      expect(letter).toMatchObject({
        reason: 'validation',
        partitionKey: sub,
        truncated: { cut: [expect.stringMatching(/^(size|depth)$/)] },
      });
      expect(letter.document).toMatchObject({
        id: (letter.source as { id: string }).id,
        partitionKey: sub,
        _etag: expect.any(String),
        _lsn: expect.any(Number),
      });
      expect(jsonByteLength(letter)).toBeLessThan(1.1 * MiB);
    }
    // The range moved on: checkpointed past them, no lease given up or taken again, no handler failure.
    await waitFor(async () => (await app.pipeline.processor.getCurrentState()).leases.every((l) => l.lag === 0), { timeoutMs: 20_000 });
    expect(leaseChurn(since)).toEqual([]);
    expect(events.filter((e) => e.at >= since && (e.type === EVENTS.handlerFailed || e.type === EVENTS.poison))).toEqual([]);
    expect(logs.join('')).not.toContain('Maximum call stack size exceeded');
    expect(logs.filter((l) => l.includes('"document dead-lettered (validation)"'))).toHaveLength(bad.length);

    // A relist finds the same versions again: still one dead letter each.
    const before = await deadLettersOf(ids);
    const linesBefore = logs.length;
    await app.pipeline.relist(app.pipeline.processor.ownedLeaseTokens()[0], { min: '', max: 'FF' }, 'test');
    const relisted = logs.slice(linesBefore).filter((l) => l.includes('"document dead-lettered (validation)"') && l.includes(sub));
    expect(relisted).toEqual([]); // already set aside: not counted, logged or tapped again
    const after = await deadLettersOf(ids);
    expect(after.map((d) => [d.id, d._etag]).sort()).toEqual(before.map((d) => [d.id, d._etag]).sort());
  });

  it('with a DeadLetters container that fails every write, the range moves on, and the dead letters land once Cosmos takes them', async () => {
    cosmos.emu.setFaults({ unavailableRate: 1, kinds: ['write'], path: '/colls/DeadLetters/' });
    const since = Date.now();
    const sub = await newSubscription();
    const bad = [ofSize(sub, 2.0 * MB), deep(sub), ofSize(sub, 1.9 * MB)];
    for (const doc of bad) await frontend.writeRawOperation(doc);
    const good = await frontend.createCluster(sub, 'rg', 'after-refused-dead-letters');

    const notified = await receiver.waitForNotification(good.operationId, 60_000);
    expect((notified.body as { status: string }).status).toBe('Succeeded');
    // One deadline (10 s) for the first document, then the others are skipped at once.
    expect(Date.now() - since).toBeLessThan(40_000);
    await waitFor(async () => (await app.pipeline.processor.getCurrentState()).leases.every((l) => l.lag === 0), { timeoutMs: 20_000 });
    expect(leaseChurn(since)).toEqual([]);
    expect(events.filter((e) => e.at >= since && e.type === EVENTS.handlerFailed)).toEqual([]);
    expect(await deadLettersOf(bad.map((d) => d.id as string))).toEqual([]);
    expect(logs.join('')).not.toContain('Maximum call stack size exceeded');

    // Cosmos takes writes again: the dead letters given up for now land in the background, once each.
    cosmos.emu.clearFaults();
    const written = await waitFor(
      async () => {
        const letters = await deadLettersOf(bad.map((d) => d.id as string));
        return letters.length === bad.length ? letters : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(new Set(written.map((d) => (d.source as { id: string }).id)).size).toBe(bad.length);
  }, 180_000);
});

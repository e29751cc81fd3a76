import { concatMap, defer, from, map, tap, throwError, timer } from 'rxjs';
import {
  EVENTS,
  createChangeFeedProcessor,
  createChangeFeedStream,
  handleBatches,
  ofType,
  type ChangeFeedEvent,
  type ChangeFeedProcessor,
} from '@opstream/changefeed';
import type { ChangeFeedContext } from '../../../src/changefeed/handler';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, createContainers, type Containers, type Doc } from './harness';

describe('poison documents and the stream face', () => {
  let cosmos: TestCosmos;
  let c: Containers;
  const stops: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    cosmos = await startTestCosmos();
  });
  beforeEach(async () => {
    c = await createContainers(cosmos);
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });
  afterAll(async () => {
    await cosmos.close();
  });

  /** 30 documents on one partition key (one range, one batch when read together), in order. */
  async function writeOneKey(tag: string, poisonAt: number[]): Promise<string[]> {
    const ids: string[] = [];
    const batch = Array.from({ length: 30 }, (_, i) => ({
      operationType: 'Create' as const,
      resourceBody: { id: `${tag}-${i}`, partitionKey: 'same', n: i, poison: poisonAt.includes(i) },
    }));
    // One transactional batch: the 30 changes share an LSN, so they always arrive in one page.
    const response = await c.feed.items.batch(batch, 'same');
    expect(response.result?.every((r) => r.statusCode === 201)).toBe(true);
    for (let i = 0; i < 30; i++) ids.push(`${tag}-${i}`);
    return ids;
  }

  it('a poison document goes to onPoison alone; the rest of its batch and range are delivered in order', async () => {
    const delivered: string[] = [];
    const poisoned: Array<{ id: string; error: string; context: ChangeFeedContext }> = [];
    const events: ChangeFeedEvent[] = [];
    const p: ChangeFeedProcessor = createChangeFeedProcessor<Doc & { poison?: boolean }>(
      {
        feedContainer: c.feed,
        leaseContainer: c.leases,
        handler: async (docs) => {
          const bad = docs.find((d) => d.poison);
          if (bad) throw new Error(`cannot process ${bad.id}`);
          delivered.push(...docs.map((d) => d.id));
        },
        onPoison: async (doc, error, context) => {
          poisoned.push({ id: doc.id, error: (error as Error).message, context });
        },
      },
      { ...FAST, processorName: uniqueName('p'), startFrom: 'beginning', poisonAttempts: 2 },
    );
    p.events$.subscribe((e) => events.push(e));
    stops.push(() => p.stop());
    await p.start();
    const ids = await writeOneKey('doc', [17]);
    const more = await writeOneKey('next', []);
    await waitFor(() => more.every((id) => delivered.includes(id)));

    expect(poisoned.map((x) => [x.id, x.error])).toEqual([['doc-17', 'cannot process doc-17']]);
    expect(poisoned[0].context.isolated).toBe(true);
    const good = ids.filter((id) => id !== 'doc-17');
    expect([...new Set(delivered)].filter((id) => id.startsWith('doc-'))).toEqual(good);
    expect(delivered.filter((id) => id.startsWith('next-'))).toEqual(more);
    expect(events.filter(ofType(EVENTS.poison)).map((e) => (e.document as Doc).id)).toEqual(['doc-17']);
    expect(events.filter(ofType(EVENTS.handlerFailed)).length).toBeGreaterThan(2);
    // The range moved on: its checkpoint is past the poison document.
    await waitFor(async () => (await p.getCurrentState()).leases.every((l) => l.lag === 0));
  });

  it('stream face: batches flow through operators and completion drives the checkpoint', async () => {
    const d = new Deliveries();
    // Patient retries: a nacked batch must stay unacknowledged here, not be isolated as poison.
    const patient = {
      handlerRetry: { retries: 1_000, initialDelayMs: 20, maxDelayMs: 50, multiplier: 2, jitter: 0 },
      poisonAttempts: 1_000,
    };
    const { batches$, processor } = createChangeFeedStream<Doc>(
      { feedContainer: c.feed, leaseContainer: c.leases },
      { ...FAST, ...patient, processorName: uniqueName('s'), startFrom: 'beginning' },
    );
    const checkpoints: ChangeFeedEvent[] = [];
    const poison: ChangeFeedEvent[] = [];
    processor.events$.subscribe((e) => (e.type === EVENTS.checkpoint ? checkpoints.push(e) : e.type === EVENTS.poison && poison.push(e)));
    let held = true;
    const subscription = batches$
      .pipe(
        handleBatches((docs, context) =>
          defer(() =>
            held && docs.some((doc) => doc.partitionKey === 'held')
              ? throwError(() => new Error('not yet'))
              : from(docs).pipe(
                  concatMap((doc) => timer(1).pipe(map(() => doc))),
                  tap({ complete: () => d.record(docs, context) }),
                ),
          ),
        ),
      )
      .subscribe();
    stops.push(() => subscription.unsubscribe());
    await waitFor(() => processor.ownedLeaseTokens().length === 4);

    const ids = await writeOneKey('s', []);
    await waitFor(() => d.hasAll(ids));
    await waitFor(() => checkpoints.length > 0);

    // A nacked batch is not checkpointed: its lease keeps a lag until the subscriber completes it.
    await c.feed.items.create({ id: 'held-1', partitionKey: 'held', n: 1 });
    await waitFor(async () => (await processor.getCurrentState()).leases.some((l) => (l.lag ?? 0) > 0));
    expect(d.counts.has('held-1')).toBe(false);
    held = false;
    await waitFor(async () => (await processor.getCurrentState()).leases.every((l) => l.lag === 0), { timeoutMs: 10_000 });
    expect(d.counts.get('held-1')).toBe(1);
    expect(poison).toEqual([]);

    // Unsubscribing stops the processor and releases its leases.
    subscription.unsubscribe();
    await waitFor(async () => (await processor.getCurrentState({ estimateLag: false })).leases.every((l) => l.owner === null));
  });
});

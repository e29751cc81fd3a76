import {
  createChangeFeedProcessor,
  type ChangeFeedProcessor,
  type ChangeFeedProcessorOptions,
  type LeaseDocument,
} from '@opstream/changefeed';
import { estimateLeaseLag } from '../../../src/changefeed/estimator';
import { isLeaseDocument } from '../../../src/changefeed/lease/lease-document';
import type { ChangeFeedContext } from '../../../src/changefeed/handler';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, useTestbed, type Doc } from './harness';

/**
 * A held-back checkpoint rides on the lease's next renewal: at `checkpointIntervalMs` =
 * `leaseRenewIntervalMs` a busy lease is written about once per interval, as an idle one is.
 * Lease writes are counted by the emulator per container, not by the processor.
 */
describe('checkpoints held back', () => {
  const tb = useTestbed();

  const leaseWrites = (): number => tb.cosmos.emu.counters().byContainer[tb.c.leases.id]?.requests.write ?? 0;

  function processor(
    d: Deliveries,
    options: Partial<ChangeFeedProcessorOptions> & { processorName: string; instanceName: string },
  ): { p: ChangeFeedProcessor; batches: () => number } {
    let batches = 0;
    const handler = async (docs: readonly Doc[], context: ChangeFeedContext): Promise<void> => {
      batches++;
      d.record(docs, context);
    };
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: tb.c.feed, leaseContainer: tb.c.leases, handler },
      { ...FAST, startFrom: 'beginning', ...options },
    );
    return { p, batches: () => batches };
  }

  /** What the lease documents alone say (as another process would see them): each range's lag, sorted. */
  function observer(processorName: string): { storedLags: () => Promise<number[]> } {
    return {
      storedLags: async () => {
        const { resource } = await tb.c.feed.read();
        const { resources } = await tb.c.leases.items.readAll().fetchAll();
        const leases = (resources as unknown[]).filter((r): r is LeaseDocument => isLeaseDocument(r) && r.id.startsWith(processorName));
        const lags = await Promise.all(leases.map((l) => estimateLeaseLag(tb.c.feed, resource!._rid, l)));
        return lags.sort((a, b) => a - b);
      },
    };
  }
  const allZero = (lags: number[]): boolean => lags.length === 4 && lags.every((l) => l === 0);

  async function ownsAll(p: ChangeFeedProcessor): Promise<void> {
    await waitFor(async () => (await p.getCurrentState({ estimateLag: false })).leases.filter((l) => l.ownedByThisInstance).length === 4);
  }

  it('ride on renewals: a busy lease is written once per renewal interval, not once per batch, and its progress still reaches the lease', async () => {
    const d = new Deliveries();
    const renewMs = 1_000;
    const processorName = uniqueName('ride');
    const { p, batches } = processor(d, {
      processorName,
      instanceName: 'a',
      leaseRenewIntervalMs: renewMs,
      leaseExpirationMs: 10_000,
      checkpointIntervalMs: renewMs,
    });
    tb.processors.push(p);
    await p.start();
    await ownsAll(p);

    const before = leaseWrites();
    const batchesBefore = batches();
    const started = Date.now();
    const ids: string[] = [];
    for (let i = 0; Date.now() - started < 4_000; i++) {
      ids.push(`busy-${i}`);
      await tb.c.feed.items.create<Doc>({ id: `busy-${i}`, partitionKey: `pk-${i % 16}`, n: i });
    }
    await waitFor(() => d.hasAll(ids));
    const elapsedMs = Date.now() - started;
    const writes = leaseWrites() - before;

    // Each of the 4 leases at most once per interval begun (+1: the one in progress), plus its first
    // checkpoint, which is written at once (range-reader.ts): a loaded run of the suite saw 26 of 24.
    expect(writes).toBeLessThanOrEqual(4 * (Math.ceil(elapsedMs / renewMs) + 2));
    expect(batches() - batchesBefore).toBeGreaterThan(writes);
    // What was processed reaches the lease documents (by a renewal or a due checkpoint).
    const o = observer(processorName);
    await waitFor(async () => allZero(await o.storedLags()));
  });

  it('an instance reports its own leases where its readers got to, not where the held-back checkpoint is', async () => {
    const d = new Deliveries();
    const processorName = uniqueName('held');
    // Renewals and checkpoints a minute apart: after the first checkpoint nothing is written during the test.
    const { p } = processor(d, {
      processorName,
      instanceName: 'a',
      leaseRenewIntervalMs: 60_000,
      leaseExpirationMs: 120_000,
      checkpointIntervalMs: 60_000,
    });
    tb.processors.push(p);
    await p.start();
    await ownsAll(p);
    // One document: the first page is checkpointed at once (nothing written before), later ones are held.
    const first = ['first-0'];
    for (const id of first) await tb.c.feed.items.create<Doc>({ id, partitionKey: 'one-key', n: 0 });
    await waitFor(() => d.hasAll(first));
    const o = observer(processorName);
    await waitFor(async () => allZero(await o.storedLags()));

    const held = Array.from({ length: 7 }, (_, i) => `held-${i}`);
    for (const id of held) await tb.c.feed.items.create<Doc>({ id, partitionKey: 'one-key', n: 1 });
    await waitFor(() => d.hasAll(held));

    const mine = await p.getCurrentState();
    expect(mine.leases.map((l) => l.lag)).toEqual([0, 0, 0, 0]);
    expect(await o.storedLags()).toEqual([0, 0, 0, 7]);

    // A graceful stop writes what was held back.
    await p.stop();
    expect(await o.storedLags()).toEqual([0, 0, 0, 0]);
  });

  it('a renewal writes the held-back progress: with checkpoints a minute apart, the lease still advances every renewal', async () => {
    const d = new Deliveries();
    const processorName = uniqueName('renew-carries');
    const { p } = processor(d, {
      processorName,
      instanceName: 'a',
      leaseRenewIntervalMs: 500,
      leaseExpirationMs: 5_000,
      checkpointIntervalMs: 60_000,
    });
    tb.processors.push(p);
    await p.start();
    await ownsAll(p);
    const first = ['warm-0'];
    await tb.c.feed.items.create<Doc>({ id: 'warm-0', partitionKey: 'one-key', n: 0 });
    await waitFor(() => d.hasAll(first));
    const o = observer(processorName);
    await waitFor(async () => allZero(await o.storedLags()));

    // The reader's own checkpoint is not due for a minute: only a renewal can write these.
    const later = Array.from({ length: 5 }, (_, i) => `later-${i}`);
    for (const id of later) await tb.c.feed.items.create<Doc>({ id, partitionKey: 'one-key', n: 1 });
    await waitFor(() => d.hasAll(later));
    await waitFor(async () => allZero(await o.storedLags()));
  });
});

import { EVENTS, createChangeFeedProcessor, ofType, type ChangeFeedEvent } from '@opstream/changefeed';
import { ReadTimeoutError } from '../../../src/changefeed/errors';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, useTestbed, writeDocs, type Doc } from './harness';

describe('stalled readers and slow reads', () => {
  const tb = useTestbed();

  it('a handler that hangs: the reader gives its lease up after the stall bound and the batch is delivered again', async () => {
    const d = new Deliveries();
    const events: ChangeFeedEvent[] = [];
    let hung = false;
    const p = createChangeFeedProcessor<Doc>(
      {
        feedContainer: tb.c.feed,
        leaseContainer: tb.c.leases,
        handler: async (docs, context) => {
          if (!hung && docs.some((doc) => doc.id === 'stuck-0')) {
            hung = true;
            await new Promise(() => undefined); // never settles
          }
          d.record(docs, context);
        },
      },
      { ...FAST, processorName: uniqueName('p'), startFrom: 'beginning', readTimeoutMs: 300, stallTimeoutMs: 1_000 },
    );
    p.events$.subscribe((e) => events.push(e));
    tb.processors.push(p);
    await p.start();
    const [id] = await writeDocs(tb.c.feed, 1, 'stuck');
    await waitFor(() => events.some((e) => e.type === EVENTS.leaseReleased && e.reason === 'stalled'), { timeoutMs: 10_000 });
    const released = events.filter(ofType(EVENTS.leaseReleased))[0];
    await waitFor(() => d.counts.get(id) === 1, { timeoutMs: 10_000 });
    // Taken again (here, by the same instance: it is the only one) with a fresh reader.
    expect(events.filter(ofType(EVENTS.leaseAcquired)).filter((e) => e.leaseToken === released.leaseToken).length).toBe(2);
    expect(events.filter(ofType(EVENTS.error)).some((e) => e.error.name === 'ReaderStalledError')).toBe(true);
  });

  it('a change feed read that hangs past readTimeoutMs is abandoned and retried; the lease is kept', async () => {
    const d = new Deliveries();
    const events: ChangeFeedEvent[] = [];
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: tb.c.feed, leaseContainer: tb.c.leases, handler: d.handler },
      { ...FAST, processorName: uniqueName('p'), startFrom: 'beginning', readTimeoutMs: 300, stallTimeoutMs: 10_000 },
    );
    p.events$.subscribe((e) => events.push(e));
    tb.processors.push(p);
    await p.start();
    await waitFor(() => p.ownedLeaseTokens().length === 4);
    tb.cosmos.emu.setFaults({ kinds: ['changeFeed'], latencyMs: 1_500, count: 4 });
    const ids = await writeDocs(tb.c.feed, 20, 'slow');
    await waitFor(() => d.hasAll(ids), { timeoutMs: 15_000 });
    const timeouts = events.filter(ofType(EVENTS.error)).filter((e) => e.error.cause instanceof ReadTimeoutError);
    expect(timeouts.length).toBeGreaterThan(0);
    expect(timeouts.every((e) => e.error.retriable)).toBe(true);
    expect(events.filter((e) => e.type === EVENTS.leaseReleased || e.type === EVENTS.leaseLost)).toEqual([]);
  });
});

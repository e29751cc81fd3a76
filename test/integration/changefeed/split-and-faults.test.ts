import type { Container } from '@azure/cosmos';
import { ChangeFeedStartFrom } from '@azure/cosmos';
import {
  EVENTS,
  createChangeFeedProcessor,
  type ChangeFeedEvent,
  type ChangeFeedProcessor,
  type LeaseDocument,
} from '@opstream/changefeed';
import type { TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, useTestbed, writeDocs, type Doc } from './harness';

async function listLeases(leases: Container): Promise<LeaseDocument[]> {
  const { resources } = await leases.items.query<LeaseDocument>('SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)').fetchAll();
  return resources.sort((a, b) => (a.FeedRange.Range.min < b.FeedRange.Range.min ? -1 : 1));
}

/** Writes continuously until stopped; returns every id it wrote. */
function startWriter(feed: Container, tag: string): { stop(): Promise<string[]>; written: string[] } {
  const written: string[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const id = `${tag}-${i}`;
      try {
        await feed.items.create<Doc>({ id, partitionKey: `pk-${tag}-${i}`, n: i });
        written.push(id);
      } catch {
        // a write that failed (fault injection) was not written; the processor owes nothing for it
      }
    }
  })();
  return {
    written,
    stop: async () => {
      running = false;
      await loop;
      return written;
    },
  };
}

/**
 * Makes the next partition key range lookup of `feed` fail with a 503, and checks what @azure/cosmos
 * (4.10 and later) does with it: the failure is not kept, so the next read asks again and succeeds.
 * (4.9 kept the rejected lookup: every later read of the container on that client failed at once,
 * without a request and without a status; feed/routing-map.ts still removes such an entry if an SDK
 * ever keeps one again.)
 */
async function failOneRangeLookup(cosmos: TestCosmos, feed: Container): Promise<void> {
  const read = () => feed.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }).readNext();
  cosmos.emu.setFaults({ unavailableRate: 1, kinds: ['pkranges'], count: 1 });
  await expect(read()).rejects.toThrow(/unavailable/i);
  cosmos.emu.clearFaults();
  const requests = cosmos.emu.counters().pkranges;
  await expect(read()).resolves.toBeDefined();
  expect(cosmos.emu.counters().pkranges).toBeGreaterThan(requests);
}

/** The engine's error events, as plain data: what a failure message needs to say why a lease ended. */
function errorsOf(events: ChangeFeedEvent[]): unknown[] {
  return events.flatMap((e) =>
    e.type === EVENTS.error
      ? [
          {
            at: e.at,
            leaseToken: e.leaseToken,
            message: e.error.message,
            retriable: e.error.retriable,
            statusCode: e.error.statusCode,
            cause: String(e.error.cause),
          },
        ]
      : [],
  );
}

describe('splits and faults', () => {
  const tb = useTestbed();

  function processor(name: string, instanceName: string, d: Deliveries, events: ChangeFeedEvent[]): ChangeFeedProcessor {
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: tb.c.feed, leaseContainer: tb.c.leases, handler: d.handler },
      { ...FAST, processorName: name, instanceName, startFrom: 'beginning' },
    );
    p.events$.subscribe((e) => events.push(e));
    tb.processors.push(p);
    return p;
  }

  it('a split under load: the parent lease is replaced by its children, nothing is lost', async () => {
    const d = new Deliveries();
    const events: ChangeFeedEvent[] = [];
    const name = uniqueName('p');
    const [a, b] = [processor(name, 'a', d, events), processor(name, 'b', d, events)];
    await a.start();
    await b.start();
    const writer = startWriter(tb.c.feed, 'load');
    await waitFor(() => writer.written.length >= 100);

    const before = await listLeases(tb.c.leases);
    expect(before.map((l) => l.LeaseToken)).toEqual(['-10', '10-20', '20-30', '30-FF']);
    const split = await tb.cosmos.emu.splitRange(tb.c.database.id, tb.c.feed.id, '1');
    expect(split.children).toHaveLength(2);

    // The split is noticed at the parent's next read; children are created, the parent deleted.
    const after = await waitFor(
      async () => {
        const leases = await listLeases(tb.c.leases);
        return leases.length === 5 && !leases.some((l) => l.LeaseToken === '10-20') ? leases : undefined;
      },
      { timeoutMs: 20_000 },
    );
    await waitFor(() => writer.written.length >= 300);
    const written = await writer.stop();

    // One lease per range: contiguous, non-overlapping, covering everything.
    const bounds = after.map((l) => [l.FeedRange.Range.min, l.FeedRange.Range.max]);
    expect(bounds[0][0]).toBe('');
    expect(bounds[bounds.length - 1][1]).toBe('FF');
    for (let i = 1; i < bounds.length; i++) expect(bounds[i][0]).toBe(bounds[i - 1][1]);
    const splitEvent = events.find((e) => e.type === EVENTS.leaseSplit);
    expect(splitEvent).toMatchObject({ leaseToken: '10-20' });

    await waitFor(() => d.hasAll(written), {
      timeoutMs: 20_000,
      describe: () => `missing ${d.missing(written).length} of ${written.length}`,
    });
    // Children are read by someone: the documents of the split range keep arriving.
    const childTokens = after.filter((l) => l.FeedRange.Range.min >= '10' && l.FeedRange.Range.max <= '20').map((l) => l.LeaseToken);
    expect(childTokens).toHaveLength(2);
    await waitFor(() => childTokens.every((t) => d.leasesSeen.has(t)), { timeoutMs: 10_000 });
    // Not replayed forever: after everything was delivered, no more deliveries happen.
    const settled = [...d.counts.values()].reduce((a, n) => a + n, 0);
    await waitFor(async () => (await a.getCurrentState()).leases.every((l) => l.lag === 0), { timeoutMs: 10_000 });
    expect([...d.counts.values()].reduce((x, n) => x + n, 0)).toBe(settled);
  });

  it('10 % of requests failing with 429/503: nothing is lost, the leases are kept', async () => {
    const d = new Deliveries();
    const events: ChangeFeedEvent[] = [];
    const name = uniqueName('p');
    const p = processor(name, 'a', d, events);
    await p.start();
    await waitFor(() => p.ownedLeaseTokens().length === 4);
    tb.cosmos.emu.setFaults({ throttleRate: 0.05, unavailableRate: 0.0526, retryAfterMs: 5 });
    const writer = startWriter(tb.c.feed, 'faulty');
    await waitFor(() => writer.written.length >= 300, { timeoutMs: 30_000 });
    const written = await writer.stop();
    await waitFor(() => d.hasAll(written), { timeoutMs: 30_000, describe: () => `missing ${d.missing(written).length}` });
    const counters = tb.cosmos.emu.counters();
    expect(counters.throttled + counters.unavailable).toBeGreaterThan(10);
    tb.cosmos.emu.clearFaults();
    // On failure, the errors that ended the leases are part of the message (the failure is seen under CI load only).
    const ended = events.filter((e) => e.type === EVENTS.leaseLost || e.type === EVENTS.leaseReleased);
    expect({ ended, errors: ended.length ? errorsOf(events) : [] }).toEqual({ ended: [], errors: [] });
    expect(p.ownedLeaseTokens()).toHaveLength(4);
  });

  // Regression: the "10 %" test above stalled completely under CI load when the readers' first
  // partition key range lookup met a 503 and @azure/cosmos 4.9 kept that failure. The SDK no longer
  // keeps it; readers whose lookup fails keep their leases and deliver all the same.
  it('a failed partition key range lookup is not kept: the readers recover, keep their leases and deliver', async () => {
    await failOneRangeLookup(tb.cosmos, tb.c.feed);
    const d = new Deliveries();
    const events: ChangeFeedEvent[] = [];
    const p = processor(uniqueName('p'), 'a', d, events);
    await p.start();
    await waitFor(() => p.ownedLeaseTokens().length === 4);
    const ids = await writeDocs(tb.c.feed, 40, 'failed-lookup');
    await waitFor(() => d.hasAll(ids), { describe: () => `missing ${d.missing(ids).length} of ${ids.length}` });
    expect(events.filter((e) => e.type === EVENTS.leaseLost || e.type === EVENTS.leaseReleased)).toEqual([]);
    const errors = events.flatMap((e) => (e.type === EVENTS.error ? [e.error] : []));
    for (const error of errors) expect(error).toMatchObject({ retriable: true });
    expect(p.ownedLeaseTokens()).toHaveLength(4);
  });

  it('a failed partition key range lookup: start() from "now" fails with the real 503 once, then starts', async () => {
    await failOneRangeLookup(tb.cosmos, tb.c.feed);
    const d = new Deliveries();
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: tb.c.feed, leaseContainer: tb.c.leases, handler: d.handler },
      { ...FAST, processorName: uniqueName('p'), instanceName: 'a', startFrom: 'now' },
    );
    tb.processors.push(p);
    tb.cosmos.emu.setFaults({ unavailableRate: 1, kinds: ['pkranges'], count: 1 });
    await expect(p.start()).rejects.toMatchObject({ code: 503 });
    await p.start();
    await waitFor(() => p.ownedLeaseTokens().length === 4);
    const ids = await writeDocs(tb.c.feed, 20, 'after-start');
    await waitFor(() => d.hasAll(ids), { describe: () => `missing ${d.missing(ids).length} of ${ids.length}` });
  });
});

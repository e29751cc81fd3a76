import type { Container } from '@azure/cosmos';
import { EVENTS, createChangeFeedProcessor, type ChangeFeedEvent, type LeaseDocument } from '@opstream/changefeed';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, useTestbed, writeDocs, type Doc } from './harness';

async function leaseTokens(leases: Container): Promise<string[]> {
  const { resources } = await leases.items.query<LeaseDocument>('SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)').fetchAll();
  return resources.map((l) => l.LeaseToken).sort();
}

/**
 * The library is generic: a monitored container created without a partition key version is hash v1
 * (on the service as on the emulator), with v1 range bounds. Leases, reads and splits work on it as on v2.
 */
describe('change feed processor on a container created without a hash version (v1)', () => {
  const tb = useTestbed({ feedKey: { paths: ['/partitionKey'] } });

  it('leases its v1 ranges, delivers everything, and replaces a split range by its children without losing a document', async () => {
    const d = new Deliveries();
    const events: ChangeFeedEvent[] = [];
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: tb.c.feed, leaseContainer: tb.c.leases, handler: d.handler },
      { ...FAST, processorName: uniqueName('p'), instanceName: 'a', startFrom: 'beginning' },
    );
    p.events$.subscribe((e) => events.push(e));
    tb.processors.push(p);
    const before = await writeDocs(tb.c.feed, 60, 'before');
    await p.start();
    const ranges = (await tb.c.feed.readPartitionKeyRanges().fetchAll()).resources;
    // v1 bounds are encoded 32-bit hashes (every v1 EPK starts with 05)
    expect(ranges.slice(1).every((r) => r.minInclusive.startsWith('05'))).toBe(true);
    await waitFor(async () => (await leaseTokens(tb.c.leases)).length === ranges.length);
    await waitFor(() => d.hasAll(before), { describe: () => `missing ${d.missing(before).length} of ${before.length}` });

    const parent = ranges[1];
    const split = await tb.cosmos.emu.splitRange(tb.c.database.id, tb.c.feed.id, parent.id);
    const after = await writeDocs(tb.c.feed, 60, 'after');
    const parentToken = `${parent.minInclusive}-${parent.maxExclusive}`;
    await waitFor(
      async () => {
        const tokens = await leaseTokens(tb.c.leases);
        return tokens.length === ranges.length + 1 && !tokens.includes(parentToken);
      },
      { timeoutMs: 20_000, describe: () => 'the parent lease replaced by its two children' },
    );
    // The event follows the parent's deletion, which the query above may see first.
    const splitEvent = await waitFor(() => events.find((e) => e.type === EVENTS.leaseSplit));
    expect(splitEvent).toMatchObject({ leaseToken: parentToken });
    await waitFor(() => d.hasAll(after), { timeoutMs: 20_000, describe: () => `missing ${d.missing(after).length} of ${after.length}` });
    expect(split.children).toHaveLength(2);
  });
});

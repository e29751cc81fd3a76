import { ChangeFeedConfigurationError, createChangeFeedProcessor, type ChangeFeedProcessor } from '@opstream/changefeed';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, useTestbed, writeDocs, type Doc } from './harness';

describe('change feed processor, one instance', () => {
  const tb = useTestbed();

  function start(deliveries: Deliveries, startFrom: 'beginning' | 'now' | { time: Date }): ChangeFeedProcessor {
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: tb.c.feed, leaseContainer: tb.c.leases, handler: deliveries.handler },
      { ...FAST, processorName: uniqueName('p'), startFrom },
    );
    tb.processors.push(p);
    return p;
  }

  it('from the beginning: delivers what was written before start and after, on every range', async () => {
    const before = await writeDocs(tb.c.feed, 40, 'before');
    const d = new Deliveries();
    const p = start(d, 'beginning');
    await p.start();
    const after = await writeDocs(tb.c.feed, 40, 'after');
    await waitFor(() => d.hasAll([...before, ...after]), { describe: () => `missing ${d.missing([...before, ...after]).length}` });
    expect(p.ownedLeaseTokens().sort()).toEqual(['-10', '10-20', '20-30', '30-FF']);
    expect(d.leasesSeen.size).toBe(4);
  });

  it('from now: skips what was written before start, never the first change after it', async () => {
    const before = await writeDocs(tb.c.feed, 20, 'before');
    const d = new Deliveries();
    const p = start(d, 'now');
    await p.start();
    const first = await writeDocs(tb.c.feed, 1, 'first');
    const after = await writeDocs(tb.c.feed, 20, 'after');
    await waitFor(() => d.hasAll([...first, ...after]));
    expect(before.filter((id) => d.counts.has(id))).toEqual([]);
  });

  it('from a time: delivers changes after it only', async () => {
    const before = await writeDocs(tb.c.feed, 20, 'before');
    await waitFor(async () => Date.now() > (await tb.c.feed.item(before[19], `pk-before-19`).read()).resource!._ts * 1000 + 1100, {
      timeoutMs: 5000,
    });
    const time = new Date();
    const after = await writeDocs(tb.c.feed, 20, 'after');
    const d = new Deliveries();
    const p = start(d, { time });
    await p.start();
    const later = await writeDocs(tb.c.feed, 10, 'later');
    await waitFor(() => d.hasAll([...after, ...later]));
    expect(before.filter((id) => d.counts.has(id))).toEqual([]);
  });

  it('refuses a lease container that is not partitioned on /id or has TTL off, saying how to fix it', async () => {
    const d = new Deliveries();
    const { container: wrongKey } = await tb.c.database.containers.createIfNotExists({
      id: uniqueName('bad'),
      partitionKey: { paths: ['/pk'] },
      defaultTtl: -1,
    });
    const { container: noTtl } = await tb.c.database.containers.createIfNotExists({
      id: uniqueName('bad'),
      partitionKey: { paths: ['/id'] },
    });
    const make = (leaseContainer: typeof wrongKey) =>
      createChangeFeedProcessor<Doc>(
        { feedContainer: tb.c.feed, leaseContainer, handler: d.handler },
        { ...FAST, processorName: uniqueName('p') },
      );
    await expect(make(wrongKey).start()).rejects.toThrow(ChangeFeedConfigurationError);
    await expect(make(wrongKey).start()).rejects.toThrow(/partitioned on \["\/pk"\]; leases need partitionKey \{ paths: \['\/id'\] \}/);
    await expect(make(noTtl).start()).rejects.toThrow(/TTL off.*defaultTtl: -1/);
  });
});

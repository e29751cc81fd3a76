import { createChangeFeedProcessor, type ChangeFeedProcessor } from '@opstream/changefeed';
import { leaseStateCache } from '../../../src/app/lease-state-cache';
import { checkReadiness } from '../../../src/app/readiness';
import { createMetrics } from '../../../src/ops/metrics';
import { requestsDuring, startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { createContainers, writeDocs, type Containers, type Doc } from '../changefeed/harness';

/**
 * What the probes and the scrapes of a Kubernetes deploy cost Cosmos (a readiness check every 10 s,
 * a scrape every 30 s, on every replica), counted by the emulator: for an instance that holds its
 * leases and whose ranges are quiet, a readiness check reads the database once and no lease, and a
 * scrape lists the leases once and reads no range's change feed.
 */
describe('the cost of a readiness check and of a scrape', () => {
  let cosmos: TestCosmos;
  let c: Containers;
  let processor: ChangeFeedProcessor;

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    c = await createContainers(cosmos);
    const ids = await writeDocs(c.feed, 8, 'doc');
    const delivered = new Set<string>();
    // Long intervals: nothing of the processor's own (renewal, listing, poll) lands among the counts.
    processor = createChangeFeedProcessor<Doc>(
      {
        feedContainer: c.feed,
        leaseContainer: c.leases,
        handler: (docs) => {
          for (const d of docs) delivered.add(d.id);
        },
      },
      {
        processorName: uniqueName('probes'),
        instanceName: 'host-a',
        startFrom: 'beginning',
        leaseAcquireIntervalMs: 120_000,
        leaseRenewIntervalMs: 100_000,
        leaseExpirationMs: 300_000,
        maxPollDelayMs: 120_000,
        activeWindowMs: 0,
        pollDelayRampSteps: 0,
        checkpointIntervalMs: 0,
      },
    );
    await processor.start();
    await waitFor(() => ids.every((id) => delivered.has(id)));
    // Every reader resting (caught up): the state read from memory says so.
    await waitFor(async () => {
      const s = await processor.getCurrentState({ estimateLag: 'owned', listing: false });
      return s.leases.length === 4 && s.leases.every((l) => l.idleUntil !== undefined);
    });
  });
  afterAll(async () => {
    await processor?.stop();
    await cosmos.close();
  });

  const requestsOf = (look: () => Promise<unknown>): Promise<Record<string, number>> => requestsDuring(cosmos.emu, look);

  it('a readiness check of an instance holding leases: one database read, no lease listed', async () => {
    const leaseCount = jest.fn(async () => 4);
    let report: Awaited<ReturnType<typeof checkReadiness>> | undefined;
    const cost = await requestsOf(
      async () => (report = await checkReadiness({ database: c.database, processor, stallMs: 60_000, leaseCount })),
    );
    expect(report).toMatchObject({ ready: true, checks: { changefeed: { ok: true, detail: '4 of 4 lease(s) held' } } });
    expect(cost).toEqual({ '-': 1 });
    expect(leaseCount).toHaveBeenCalledTimes(1);
  });

  it('without a lease count it lists the leases on every check (the query and its plan)', async () => {
    const cost = await requestsOf(() => checkReadiness({ database: c.database, processor, stallMs: 60_000 }));
    expect(cost).toEqual({ '-': 1, [c.leases.id]: 2 });
  });

  it("a scrape's lease state: one listing, and the lag of each resting range without a read", async () => {
    const metrics = createMetrics();
    const cost = await requestsOf(() => leaseStateCache(processor, metrics)());
    expect(cost).toEqual({ [c.leases.id]: 2 });
    expect(await metrics.registry.getSingleMetricAsString('opstream_changefeed_lease_lag_changes')).toMatch(/lease="[^"]+"\} 0/);
  });
});

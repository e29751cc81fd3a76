import { createChangeFeedProcessor, type ChangeFeedProcessor } from '@opstream/changefeed';
import { requestsDuring, startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, createContainers, writeDocs, type Containers, type Doc } from './harness';

/**
 * What a look at the processor's state costs, counted by the emulator: a probe or a scrape every
 * few seconds on every instance must not cost a read per lease, nor a listing when it needs none.
 */
describe('getCurrentState: what it reads', () => {
  let cosmos: TestCosmos;
  let c: Containers;
  let p: ChangeFeedProcessor;

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    c = await createContainers(cosmos);
    const d = new Deliveries();
    // Written before the start and read from the beginning; caught up, a reader then rests for a
    // minute: long enough that every look below finds it resting.
    const ids = await writeDocs(c.feed, 12, 'doc');
    p = createChangeFeedProcessor<Doc>(
      { feedContainer: c.feed, leaseContainer: c.leases, handler: d.handler },
      {
        ...FAST,
        processorName: uniqueName('cost'),
        instanceName: 'host-a',
        startFrom: 'beginning',
        maxPollDelayMs: 60_000,
        activeWindowMs: 0,
        pollDelayRampSteps: 0,
      },
    );
    await p.start();
    await waitFor(() => d.hasAll(ids));
    await waitFor(async () => ((await p.getCurrentState({ estimateLag: false, listing: false })).leases.length === 4 ? true : undefined));
  });
  afterAll(async () => {
    await p?.stop();
    await cosmos.close();
  });

  /** The requests `look` makes, by the emulator's counters: to the lease and to the monitored container. */
  async function requestsOf(look: () => Promise<unknown>): Promise<{ leases: number; feed: number }> {
    const by = await requestsDuring(cosmos.emu, look);
    return { leases: by[c.leases.id] ?? 0, feed: by[c.feed.id] ?? 0 };
  }

  it('readers resting caught up: lag 0 for each without a change feed read', async () => {
    let state: Awaited<ReturnType<ChangeFeedProcessor['getCurrentState']>> | undefined;
    const cost = await requestsOf(async () => (state = await p.getCurrentState({ estimateLag: true })));
    expect(state!.leases.map((l) => [l.ownedByThisInstance, l.lag])).toEqual(Array(4).fill([true, 0]));
    expect(cost.feed).toBe(0);
    expect(cost.leases).toBeGreaterThan(0);
  });

  it('listing: false reports the leases held here from memory, without any request', async () => {
    let state: Awaited<ReturnType<ChangeFeedProcessor['getCurrentState']>> | undefined;
    const cost = await requestsOf(async () => (state = await p.getCurrentState({ estimateLag: 'owned', listing: false })));
    expect(cost).toEqual({ leases: 0, feed: 0 });
    expect(state!.leases).toHaveLength(4);
    expect(state!.leases.every((l) => l.owner === 'host-a' && l.ownedByThisInstance && l.lag === 0)).toBe(true);
  });

  it("'owned' estimates no lease this instance does not hold (stopped: one read per lease only with true)", async () => {
    await p.stop();
    await writeDocs(c.feed, 3, 'after-stop');
    const owned = await requestsOf(() => p.getCurrentState({ estimateLag: 'owned' }));
    expect(owned.feed).toBe(0);
    let all: Awaited<ReturnType<ChangeFeedProcessor['getCurrentState']>> | undefined;
    const every = await requestsOf(async () => (all = await p.getCurrentState({ estimateLag: true })));
    expect(every.feed).toBeGreaterThanOrEqual(4);
    expect(all!.leases.reduce((s, l) => s + (l.lag ?? 0), 0)).toBeGreaterThanOrEqual(3);
  });
});

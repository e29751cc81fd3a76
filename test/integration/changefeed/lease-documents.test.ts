import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createChangeFeedProcessor, type ChangeFeedProcessor } from '@opstream/changefeed';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, createContainers, writeDocs, type Containers, type Doc } from './harness';

const fixture = JSON.parse(readFileSync(join(__dirname, '../../fixtures/changefeed-dotnet-lease.json'), 'utf8')) as Record<string, unknown>;

describe('lease documents in the lease container', () => {
  let cosmos: TestCosmos;
  let c: Containers;
  let p: ChangeFeedProcessor;

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    c = await createContainers(cosmos);
  });
  afterAll(async () => {
    await p?.stop();
    await cosmos.close();
  });

  it('are .NET-shaped field by field, with the .NET id format, markers and checkpoints', async () => {
    const d = new Deliveries();
    const processorName = uniqueName('ops');
    p = createChangeFeedProcessor<Doc>(
      { feedContainer: c.feed, leaseContainer: c.leases, handler: d.handler },
      { ...FAST, processorName, startFrom: 'beginning', instanceName: 'host-a' },
    );
    await p.start();
    const ids = await writeDocs(c.feed, 30, 'doc');
    await waitFor(() => d.hasAll(ids));

    const { resource: db } = await c.database.read();
    const { resource: coll } = await c.feed.read();
    const prefix = `${processorName}127.0.0.1_${db!._rid}_${coll!._rid}`;
    const { resources: all } = await c.leases.items.readAll<Record<string, unknown>>().fetchAll();
    const leases = await waitFor(async () => {
      const { resources } = await c.leases.items.readAll<Record<string, unknown>>().fetchAll();
      const ls = resources.filter((r) => String(r.id).startsWith(`${prefix}..`));
      return ls.length === 4 && ls.every((l) => typeof l.ContinuationToken === 'string') ? ls : undefined;
    });

    expect(all.map((r) => r.id)).toContain(`${prefix}.info`);
    expect(all.map((r) => r.id)).not.toContain(`${prefix}.lock`);
    const own = (doc: Record<string, unknown>): string[] =>
      Object.keys(doc)
        .filter((k) => !k.startsWith('_'))
        .sort();
    const fixtureKeys = own(fixture);
    for (const lease of leases) {
      const token = lease.LeaseToken as string;
      expect(lease.id).toBe(`${prefix}..${token}`);
      const range = (lease.FeedRange as { Range: { min: string; max: string } }).Range;
      expect(token).toBe(`${range.min}-${range.max}`);
      // Server fields (_etag, _ts, …) are the store's; every field of the document itself is .NET's.
      expect(own(lease)).toEqual(fixtureKeys);
      expect(typeof lease._etag).toBe('string');
      for (const key of fixtureKeys) expect({ key, type: typeof lease[key] }).toEqual({ key, type: typeof fixture[key] });
      expect(lease.version).toBe(1);
      expect(lease.Mode).toBe('Incremental Feed');
      expect(lease.Owner).toBe('host-a');
      expect(lease.ContinuationToken).toMatch(/^"\d+"$/);
      expect(Number.isNaN(Date.parse(lease.timestamp as string))).toBe(false);
      expect(lease.properties).toEqual({});
    }
  });

  it('getCurrentState reports owner, range, continuation, progress and the estimated lag per lease', async () => {
    // Checkpoints are held back up to checkpointIntervalMs: wait until the last one is written.
    const state = await waitFor(async () => {
      const s = await p.getCurrentState();
      return s.leases.every((l) => l.lag === 0) ? s : undefined;
    });
    expect(state.leases).toHaveLength(4);
    expect(state.running).toBe(true);
    for (const lease of state.leases) {
      expect(lease.owner).toBe('host-a');
      expect(lease.ownedByThisInstance).toBe(true);
      expect(lease.lag).toBe(0);
      expect(lease.lastProgressAt).toBeGreaterThan(0);
      expect(lease.continuation).toMatch(/^"\d+"$/);
    }

    // Stopped (leases released), 12 changes to one partition key: its range lags by 12, the others by 0.
    await p.stop();
    for (let i = 0; i < 12; i++) await c.feed.items.create<Doc>({ id: `lagging-${i}`, partitionKey: 'one-key', n: i });
    const lagged = await p.getCurrentState();
    expect(lagged.running).toBe(false);
    expect(lagged.leases.every((l) => l.owner === null && !l.ownedByThisInstance)).toBe(true);
    expect(lagged.leases.map((l) => l.lag).sort()).toEqual([0, 0, 0, 12]);
  });
});

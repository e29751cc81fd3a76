import type { Container } from '@azure/cosmos';
import {
  EVENTS,
  createChangeFeedProcessor,
  type ChangeFeedEvent,
  type ChangeFeedProcessor,
  type LeaseDocument,
} from '@opstream/changefeed';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, createContainers, writeDocs, type Containers, type Doc } from './harness';
import { Worker } from '../../../bench/harness/changefeed-workers';

async function owners(leases: Container): Promise<Map<string, string | null>> {
  const { resources } = await leases.items.query<LeaseDocument>('SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)').fetchAll();
  return new Map(resources.map((l) => [l.LeaseToken, l.Owner]));
}

function spread(map: Map<string, string | null>): number[] {
  const counts = new Map<string, number>();
  for (const owner of map.values()) if (owner) counts.set(owner, (counts.get(owner) ?? 0) + 1);
  return [...counts.values()].sort();
}

describe('several instances sharing 4 ranges', () => {
  let cosmos: TestCosmos;
  let c: Containers;
  const processors: ChangeFeedProcessor[] = [];
  const workers: Worker[] = [];

  beforeAll(async () => {
    cosmos = await startTestCosmos();
  });
  beforeEach(async () => {
    c = await createContainers(cosmos);
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.kill('SIGKILL');
      await w.exited;
    }
    await Promise.all(processors.splice(0).map((p) => p.stop()));
  });
  afterAll(async () => {
    await cosmos.close();
  });

  function inProcess(processorName: string, instanceName: string, d: Deliveries, extra: object = {}): ChangeFeedProcessor {
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: c.feed, leaseContainer: c.leases, handler: d.handler },
      { ...FAST, processorName, instanceName, startFrom: 'beginning', ...extra },
    );
    processors.push(p);
    return p;
  }

  function child(processorName: string, instanceName: string, extra: object = {}): Worker {
    const w = new Worker({
      endpoint: cosmos.emu.endpoint,
      key: cosmos.emu.key,
      database: c.database.id,
      feed: c.feed.id,
      leases: c.leases.id,
      // JSON has no Infinity: bound the engine retries by a large number instead.
      options: {
        ...FAST,
        engineRetry: { ...FAST.engineRetry!, retries: 1_000_000 },
        processorName,
        instanceName,
        startFrom: 'beginning',
        ...extra,
      },
    });
    workers.push(w);
    return w;
  }

  it('three instances in one process end up 2/1/1 and deliver everything', async () => {
    const name = uniqueName('p');
    const d = new Deliveries();
    const ps = ['a', 'b', 'c'].map((i) => inProcess(name, i, d));
    const events: ChangeFeedEvent[] = [];
    for (const p of ps) p.events$.subscribe((e) => events.push(e));
    await Promise.all(ps.map((p) => p.start()));
    await waitFor(
      () => {
        const held = ps.map((p) => p.ownedLeaseTokens().length).sort();
        return JSON.stringify(held) === '[1,1,2]';
      },
      { describe: () => JSON.stringify(ps.map((p) => p.ownedLeaseTokens())) },
    );
    const all = ps.flatMap((p) => p.ownedLeaseTokens());
    expect(new Set(all).size).toBe(4);
    const ids = await writeDocs(c.feed, 60, 'doc');
    await waitFor(() => d.hasAll(ids), { describe: () => `missing ${d.missing(ids).join(',')}` });
    expect(d.byInstance.size).toBe(3);
    // Rebalancing by stealing is normal operation: leases are lost, never errors.
    const acquired = events.filter((e) => e.type === EVENTS.leaseAcquired).length;
    const lost = events.filter((e) => e.type === EVENTS.leaseLost).length;
    expect(acquired - lost).toBe(4);
    expect(events.filter((e) => e.type === EVENTS.error)).toEqual([]);
  });

  it('graceful stop releases leases: the others take over within an acquire interval, not an expiry', async () => {
    const name = uniqueName('p');
    const d = new Deliveries();
    const slowExpiry = { leaseExpirationMs: 60_000, leaseRenewIntervalMs: 10_000 };
    const [a, b] = ['a', 'b'].map((i) => inProcess(name, i, d, slowExpiry));
    await a.start();
    await b.start();
    await waitFor(() => a.ownedLeaseTokens().length === 2 && b.ownedLeaseTokens().length === 2);
    const stoppedAt = Date.now();
    await a.stop();
    expect(spread(await owners(c.leases))).toEqual([2]);
    await waitFor(() => b.ownedLeaseTokens().length === 4, { timeoutMs: 5_000 });
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    const ids = await writeDocs(c.feed, 40, 'after-stop');
    await waitFor(() => ids.every((id) => d.byInstance.get('b')?.has(id)));
  });

  it('three instances in three processes share 4 ranges evenly and deliver everything', async () => {
    const name = uniqueName('p');
    const ws = ['w1', 'w2', 'w3'].map((i) => child(name, i));
    await waitFor(() => ws.every((w) => w.started) || ws.find((w) => w.fatal()), { timeoutMs: 30_000 });
    expect(ws.map((w) => w.fatal())).toEqual([undefined, undefined, undefined]);
    await waitFor(async () => JSON.stringify(spread(await owners(c.leases))) === '[1,1,2]', { timeoutMs: 20_000 });
    const ids = await writeDocs(c.feed, 80, 'doc');
    await waitFor(() => ids.every((id) => ws.some((w) => w.delivered.has(id))), { timeoutMs: 20_000 });
    expect(ws.every((w) => w.delivered.size > 0)).toBe(true);
  });

  it('an instance killed with SIGKILL: its leases are taken over within expiration + acquire interval, nothing is lost', async () => {
    const name = uniqueName('p');
    const ws = ['w1', 'w2', 'w3'].map((i) => child(name, i));
    await waitFor(() => ws.every((w) => w.started) || ws.find((w) => w.fatal()), { timeoutMs: 30_000 });
    expect(ws.map((w) => w.fatal())).toEqual([undefined, undefined, undefined]);
    await waitFor(async () => JSON.stringify(spread(await owners(c.leases))) === '[1,1,2]', { timeoutMs: 20_000 });

    let writing = true;
    const written: string[] = [];
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const id = `live-${i}`;
        await c.feed.items.create<Doc>({ id, partitionKey: `pk-${i}`, n: i });
        written.push(id);
      }
    })();
    await waitFor(() => written.length >= 50);

    const victim = ws[0];
    const before = await owners(c.leases);
    const victimLeases = [...before].filter(([, o]) => o === 'w1').map(([t]) => t);
    expect(victimLeases.length).toBeGreaterThan(0);
    victim.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    await waitFor(
      async () => {
        const now = await owners(c.leases);
        return victimLeases.every((t) => now.get(t) && now.get(t) !== 'w1');
      },
      { timeoutMs: 20_000 },
    );
    const takeoverMs = Date.now() - killedAt;
    // expiration (2.5 s) + acquire interval (250 ms ± 10 %) + one waitFor poll and a loaded machine's slack
    expect(takeoverMs).toBeLessThan(2_500 + 275 + 1_500);

    await waitFor(() => written.length >= 150);
    writing = false;
    await writer;
    const survivors = ws.slice(1);
    await waitFor(() => written.every((id) => ws.some((w) => w.delivered.has(id))), {
      timeoutMs: 20_000,
      describe: () =>
        `undelivered: ${written
          .filter((id) => !ws.some((w) => w.delivered.has(id)))
          .slice(0, 10)
          .join(',')}`,
    });
    expect(survivors.every((w) => w.started)).toBe(true);
  });
});

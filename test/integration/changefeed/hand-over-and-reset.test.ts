import type { Container } from '@azure/cosmos';
import { createChangeFeedProcessor, leaseHandOver, type ChangeFeedProcessor, type LeaseDocument } from '@opstream/changefeed';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';
import { Deliveries, FAST, createContainers, writeDocs, type Containers, type Doc } from './harness';

const { continuationAt, handOverAction, readLease, resetAction, writeHandOver, writeReset } = leaseHandOver;

async function leaseDocs(leases: Container): Promise<LeaseDocument[]> {
  const { resources } = await leases.items.query<LeaseDocument>('SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)').fetchAll();
  return resources;
}

/**
 * The package's operator side, through its public API only: a live owner hands a lease over on
 * request (another instance takes it), and restarts a lease at a new position on request (its
 * documents are delivered again from the beginning), both through the lease document.
 */
describe('change feed processor: hand-over and reset requested through the lease document', () => {
  let cosmos: TestCosmos;
  let c: Containers;
  const processors: ChangeFeedProcessor[] = [];
  const name = uniqueName('proc');

  beforeAll(async () => {
    cosmos = await startTestCosmos();
  });
  beforeEach(async () => {
    c = await createContainers(cosmos);
  });
  afterEach(async () => {
    await Promise.all(processors.splice(0).map((p) => p.stop()));
  });
  afterAll(() => cosmos.close());

  function start(instanceName: string, d: Deliveries): ChangeFeedProcessor {
    const p = createChangeFeedProcessor<Doc>(
      { feedContainer: c.feed, leaseContainer: c.leases, handler: d.handler },
      { ...FAST, processorName: name, instanceName, startFrom: 'beginning' },
    );
    processors.push(p);
    return p;
  }

  it('a requested hand-over: the owner releases after its checkpoint, the other instance takes the lease', async () => {
    const d = new Deliveries();
    await start('a', d).start();
    await start('b', d).start();
    await waitFor(async () => (await leaseDocs(c.leases)).filter((l) => l.Owner === 'a').length === 2, {
      timeoutMs: 30_000,
      describe: () => 'a and b to hold 2 leases each',
    });
    const token = (await leaseDocs(c.leases)).find((l) => l.Owner === 'a')?.LeaseToken as string;
    const address = { feedContainer: c.feed, leaseContainer: c.leases, processorName: name, leaseToken: token };
    const lease = (await readLease(address)) as LeaseDocument;
    const action = handOverAction(lease, Date.now(), FAST.leaseExpirationMs);
    expect(action).toEqual({ kind: 'request', owner: 'a' });
    expect(await writeHandOver(c.leases, lease, action, Date.now())).not.toBe('changed');
    const taken = await waitFor(async () => ((await readLease(address))?.Owner === 'b' ? await readLease(address) : undefined), {
      timeoutMs: 20_000,
      describe: () => `b to take lease ${token}`,
    });
    expect(taken?.properties).toMatchObject({ handedOverBy: 'a' });
    expect(taken?.properties).not.toHaveProperty('releaseRequestedAt');
    // Nothing is lost on the way: documents written now are all delivered.
    const ids = await writeDocs(c.feed, 20, 'after');
    await waitFor(() => ids.every((id) => d.counts.has(id)), { timeoutMs: 20_000, describe: () => 'every document delivered' });
  });

  it('a requested reset to the beginning: the owner restarts the range there, its documents come again', async () => {
    const d = new Deliveries();
    await start('a', d).start();
    const ids = await writeDocs(c.feed, 40, 'first');
    await waitFor(() => ids.every((id) => d.counts.get(id) === 1), { timeoutMs: 20_000, describe: () => 'every document delivered once' });
    await waitFor(async () => (await leaseDocs(c.leases)).every((l) => l.ContinuationToken !== null), {
      timeoutMs: 20_000,
      describe: () => 'every lease checkpointed',
    });
    const token = (await leaseDocs(c.leases))[0].LeaseToken;
    const address = { feedContainer: c.feed, leaseContainer: c.leases, processorName: name, leaseToken: token };
    const lease = (await readLease(address)) as LeaseDocument;
    const action = resetAction(lease, Date.now(), FAST.leaseExpirationMs);
    expect(action).toEqual({ kind: 'request', owner: 'a' });
    const continuation = await continuationAt(c.feed, lease, 'beginning');
    expect(continuation).toBeNull();
    expect(await writeReset(c.leases, lease, action, continuation, Date.now())).not.toBe('changed');
    await waitFor(() => [...d.counts.values()].some((n) => n === 2), { timeoutMs: 20_000, describe: () => 'the range read again' });
    await waitFor(async () => (await readLease(address))?.properties?.continuationResetTo === undefined, {
      timeoutMs: 20_000,
      describe: () => 'the request gone',
    });
    // Only that range is read again: documents of other ranges still came once.
    expect([...d.counts.values()].some((n) => n === 1)).toBe(true);
  });
});

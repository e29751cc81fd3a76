import { BulkOperationType, ChangeFeedStartFrom, Container, OperationInput } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';

/** A document whose stored form (system properties included) stays just under `bytes`. */
function docOf(id: string, bytes: number): { id: string; pk: string; blob: string } {
  // the id, the key and the system properties take under 300 bytes
  return { id, pk: 'p', blob: 'x'.repeat(Math.max(0, bytes - 300)) };
}

describe('cosmos emulator: request charges the SDK reads', () => {
  let cosmos: TestCosmos;
  let plain: Container;
  let indexed: Container;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const db = await createTestDatabase(cosmos.client);
    plain = (
      await db.containers.createIfNotExists({
        id: 'unindexed',
        partitionKey: { paths: ['/pk'] },
        indexingPolicy: { indexingMode: 'none', automatic: false },
      })
    ).container;
    indexed = (await db.containers.createIfNotExists({ id: 'indexed', partitionKey: { paths: ['/pk'] } })).container;
  });
  afterAll(() => cosmos.close());

  it('charges a 1 KB insert without indexing 5.5 RU, its replace twice that, its point read 1 RU and its delete 5.5 RU', async () => {
    const created = await plain.items.create(docOf('one-kb', 1024));
    expect(created.requestCharge).toBe(5.5);
    const replaced = await plain.item('one-kb', 'p').replace(docOf('one-kb', 1024));
    expect(replaced.requestCharge).toBe(11);
    const read = await plain.item('one-kb', 'p').read();
    expect(read.requestCharge).toBe(1);
    const deleted = await plain.item('one-kb', 'p').delete();
    expect(deleted.requestCharge).toBe(5.5);
    const missing = await plain.item('one-kb', 'p').read();
    expect(missing.statusCode).toBe(404);
    expect(missing.requestCharge).toBe(1);
  });

  it('charges a 100 KB point read about 10 RU', async () => {
    await plain.items.create(docOf('hundred-kb', 100 * 1024));
    const read = await plain.item('hundred-kb', 'p').read();
    expect(read.requestCharge).toBeGreaterThanOrEqual(9.9);
    expect(read.requestCharge).toBeLessThanOrEqual(10.1);
  });

  it('charges indexed writes more than unindexed ones, by the number of indexed values', async () => {
    const body = { id: 'props', pk: 'p', a: 1, b: 2, c: 3, d: { e: 4, f: [5, 6] } };
    const unindexed = await plain.items.create(body);
    const withIndex = await indexed.items.create(body);
    // id, pk, a, b, c, d/e, d/f/[] ×2, _ts: 9 values at 0.1 RU each
    expect(withIndex.requestCharge - unindexed.requestCharge).toBeCloseTo(0.9, 2);
  });

  it('charges queries by documents examined and returned, and each page apart', async () => {
    for (let i = 0; i < 20; i++) await indexed.items.create({ id: `q${i}`, pk: 'q', n: i });
    const one = await indexed.items.query('SELECT * FROM c WHERE c.n = 3', { partitionKey: 'q' }).fetchAll();
    const all = await indexed.items.query('SELECT * FROM c', { partitionKey: 'q' }).fetchAll();
    expect(one.resources).toHaveLength(1);
    expect(one.requestCharge).toBeGreaterThan(2);
    // 19 more rows of ~1 RU each
    expect(all.requestCharge - one.requestCharge).toBeGreaterThan(18);
    const paged = indexed.items.query('SELECT * FROM c', { partitionKey: 'q', maxItemCount: 5 });
    const first = await paged.fetchNext();
    expect(first.resources).toHaveLength(5);
    expect(first.requestCharge).toBeLessThan(all.requestCharge);
  });

  it('charges an empty change-feed poll 1 RU and a page by its items', async () => {
    const feed = plain.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Now() });
    const empty = await feed.readNext();
    expect(empty.statusCode).toBe(304);
    expect(empty.requestCharge).toBe(1);
    await plain.items.create(docOf('cf1', 1024));
    await plain.items.create(docOf('cf2', 1024));
    let page = await feed.readNext();
    for (let i = 0; i < 10 && page.statusCode === 304; i++) page = await feed.readNext();
    expect(page.result).toHaveLength(2);
    // a page base of 1 RU plus about one point read per item (each a little over 1 KB with _lsn)
    expect(page.requestCharge).toBeGreaterThanOrEqual(3);
    expect(page.requestCharge).toBeLessThan(3.1);
  });

  it('gives each batch operation its charge and the batch their sum', async () => {
    const ops: OperationInput[] = [
      { operationType: BulkOperationType.Create, resourceBody: docOf('b1', 1024) },
      { operationType: BulkOperationType.Create, resourceBody: docOf('b2', 1024) },
      { operationType: BulkOperationType.Read, id: 'b1' },
    ];
    const response = await plain.items.batch(ops, 'p');
    const charges = (response.result ?? []).map((r) => r.requestCharge);
    expect(charges).toEqual([5.5, 5.5, 1]);
    expect(Number(response.headers['x-ms-request-charge'])).toBe(12);
  });

  it('adds the charges up per kind in the admin counters', async () => {
    cosmos.emu.resetCounters();
    let seen = 0;
    for (let i = 0; i < 5; i++) seen += (await plain.item('hundred-kb', 'p').read()).requestCharge;
    const counters = cosmos.emu.counters();
    expect(counters.pointRead).toBe(5);
    expect(counters.requestUnits.pointRead).toBeCloseTo(seen, 2);
    expect(counters.requestUnits.total).toBeGreaterThanOrEqual(counters.requestUnits.pointRead);
  });

  it("adds them up per container too, so lease upkeep can be told from the documents' own requests", async () => {
    cosmos.emu.resetCounters();
    const write = await indexed.items.create({ id: 'per-container', pk: 'p', n: 1 });
    const reads = [await plain.item('hundred-kb', 'p').read(), await plain.item('hundred-kb', 'p').read()];
    await cosmos.client.databases.readAll().fetchAll();
    const { byContainer } = cosmos.emu.counters();
    expect(byContainer.indexed).toEqual({
      requests: { write: 1 },
      requestUnits: { write: write.requestCharge, total: write.requestCharge },
    });
    expect(byContainer.unindexed.requests).toEqual({ pointRead: 2 });
    expect(byContainer.unindexed.requestUnits.total).toBeCloseTo(reads[0].requestCharge + reads[1].requestCharge, 2);
    // Account and database requests are counted under `-`.
    expect(byContainer['-'].requests.metadata).toBeGreaterThanOrEqual(1);
  });
});

import { BulkOperationType, ChangeFeedStartFrom, Container, Database, OperationInput } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';
import { rawRequest } from './raw-client';

interface Doc {
  id: string;
  pk: string;
  n?: number;
  ttl?: number;
  _lsn?: number;
}

/** Where the emulator used to differ from the service (issue 18), each checked through the real SDK. */
describe('cosmos emulator: behaves as the service does', () => {
  let cosmos: TestCosmos;
  let db: Database;
  let container: Container;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    db = await createTestDatabase(cosmos.client);
    container = (await db.containers.create({ id: 'parity', partitionKey: { paths: ['/pk'] }, defaultTtl: -1 })).container;
  });
  afterAll(() => cosmos.close());

  it('puts _lsn only on change-feed items, not on writes, point reads, queries or batch results', async () => {
    const created = await container.items.create<Doc>({ id: 'l1', pk: 'L', n: 1 });
    expect(created.resource).not.toHaveProperty('_lsn');
    expect((await container.item('l1', 'L').read<Doc>()).resource).not.toHaveProperty('_lsn');
    const queried = await container.items.query<Doc>('SELECT * FROM c WHERE c.pk = "L"').fetchAll();
    expect(queried.resources[0]).not.toHaveProperty('_lsn');
    const batch = await container.items.batch([{ operationType: BulkOperationType.Read, id: 'l1' }], 'L');
    expect(batch.result![0].resourceBody).not.toHaveProperty('_lsn');
    const feed = await container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning('L') }).readNext();
    expect(feed.result[0]._lsn).toEqual(expect.any(Number));
  });

  it("accepts '?' in item ids (and still refuses it in database and container ids)", async () => {
    const id = 'what?is=this&x';
    expect((await container.items.create<Doc>({ id, pk: 'Q' })).statusCode).toBe(201);
    expect((await container.item(id, 'Q').read<Doc>()).resource).toMatchObject({ id });
    await container.item(id, 'Q').replace<Doc>({ id, pk: 'Q', n: 2 });
    await container.item(id, 'Q').patch([{ op: 'incr', path: '/n', value: 1 }]);
    expect((await container.item(id, 'Q').read<Doc>()).resource!.n).toBe(3);
    await container.item(id, 'Q').delete();
    const raw = await rawRequest(cosmos.emu, 'POST', '/dbs', { body: JSON.stringify({ id: 'db?x' }) });
    expect(raw.status).toBe(400);
  });

  it('refuses an item with ttl: null (400), on create, upsert, replace and patch', async () => {
    await expect(container.items.create<Doc>({ id: 't1', pk: 'T', ttl: null as unknown as number })).rejects.toMatchObject({ code: 400 });
    await expect(container.items.upsert<Doc>({ id: 't1', pk: 'T', ttl: null as unknown as number })).rejects.toMatchObject({ code: 400 });
    await container.items.create<Doc>({ id: 't1', pk: 'T' });
    await expect(container.item('t1', 'T').replace<Doc>({ id: 't1', pk: 'T', ttl: null as unknown as number })).rejects.toMatchObject({
      code: 400,
    });
    await expect(container.item('t1', 'T').patch([{ op: 'set', path: '/ttl', value: null }])).rejects.toMatchObject({ code: 400 });
  });

  it('refuses partition key paths with invalid characters (400) and accepts quoted ones', async () => {
    for (const path of ['/id ds', '/a/', '/a*', '/', 'a', '/a//b', '/"open']) {
      await expect(
        db.containers.create({ id: `bad-${Math.random().toString(36).slice(2)}`, partitionKey: { paths: [path] } }),
      ).rejects.toMatchObject({ code: 400 });
    }
    const { container: quoted } = await db.containers.create({ id: 'quoted', partitionKey: { paths: ['/"my key"'] } });
    await quoted.items.create({ id: 'q', 'my key': 'v' });
    expect((await quoted.item('q', 'v').read()).statusCode).toBe(200);
  });

  it('bulk with continueOnError: false answers 424 for every operation after the first failure in its batch', async () => {
    await container.items.create<Doc>({ id: 'taken', pk: 'B' });
    const ops: OperationInput[] = [
      { operationType: BulkOperationType.Create, partitionKey: 'B', resourceBody: { id: 'b1', pk: 'B' } },
      { operationType: BulkOperationType.Create, partitionKey: 'B', resourceBody: { id: 'taken', pk: 'B' } },
      { operationType: BulkOperationType.Create, partitionKey: 'B', resourceBody: { id: 'b3', pk: 'B' } },
    ];
    const stopped = await container.items.bulk(ops, { continueOnError: false });
    expect(stopped.map((r) => r.statusCode)).toEqual([201, 409, 424]);
    expect((await container.item('b3', 'B').read()).statusCode).toBe(404);
    const ops2 = ops.map((o, i) => (i === 0 ? { ...o, resourceBody: { id: 'b0', pk: 'B' } } : o)) as OperationInput[];
    const continued = await container.items.bulk(ops2);
    expect(continued.map((r) => r.statusCode)).toEqual([201, 409, 201]);
  });

  it('honours Prefer: return=minimal (contentResponseOnWriteEnabled: false) on batch and bulk', async () => {
    await container.items.create<Doc>({ id: 'm0', pk: 'M', n: 0 });
    const batch = await container.items.batch(
      [
        { operationType: BulkOperationType.Create, resourceBody: { id: 'm1', pk: 'M' } },
        { operationType: BulkOperationType.Read, id: 'm0' },
      ],
      'M',
      { contentResponseOnWriteEnabled: false },
    );
    expect(batch.result![0].statusCode).toBe(201);
    expect(batch.result![0].resourceBody).toBeUndefined();
    expect(batch.result![0].eTag).toEqual(expect.any(String));
    expect(batch.result![1].resourceBody).toMatchObject({ id: 'm0' });
    const bulk = await container.items.bulk([{ operationType: BulkOperationType.Upsert, resourceBody: { id: 'm2', pk: 'M' } }], undefined, {
      contentResponseOnWriteEnabled: false,
    });
    expect(bulk[0].statusCode).toBe(201);
    expect(bulk[0].resourceBody).toBeUndefined();
  });

  it('routes deleteAllItemsForPartitionKey: the whole logical partition goes, others stay', async () => {
    for (let i = 0; i < 5; i++) await container.items.create<Doc>({ id: `d${i}`, pk: 'D' });
    await container.items.create<Doc>({ id: 'd0', pk: 'E' });
    const response = await container.deleteAllItemsForPartitionKey('D');
    expect(response.statusCode).toBe(200);
    expect((await container.items.query('SELECT * FROM c', { partitionKey: 'D' }).fetchAll()).resources).toEqual([]);
    expect((await container.item('d0', 'E').read()).statusCode).toBe(200);
  });

  it('names the answering range in x-ms-documentdb-partitionkeyrangeid on change-feed responses', async () => {
    await container.items.create<Doc>({ id: 'f1', pk: 'F' });
    const [range] = await container.getFeedRanges();
    const iterator = container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range) });
    const page = await iterator.readNext();
    const path = `/dbs/${db.id}/colls/${container.id}/docs`;
    const raw = await rawRequest(cosmos.emu, 'GET', path, {
      headers: { 'a-im': 'Incremental feed', 'x-ms-documentdb-partitionkeyrangeid': '1' },
    });
    expect(raw.headers.get('x-ms-documentdb-partitionkeyrangeid')).toBe('1');
    const none = await rawRequest(cosmos.emu, 'GET', path, {
      headers: { 'a-im': 'Incremental feed', 'x-ms-documentdb-partitionkeyrangeid': '2', 'if-none-match': '*' },
    });
    expect(none.status).toBe(304);
    expect(none.headers.get('x-ms-documentdb-partitionkeyrangeid')).toBe('2');
    expect(page.statusCode === 200 || page.statusCode === 304).toBe(true);
  });

  it('sends x-ms-documentdb-query-metrics when the query asks (populateQueryMetrics), and only then', async () => {
    const asked = await container.items
      .query('SELECT * FROM c WHERE c.pk = "L"', { partitionKey: 'L', populateQueryMetrics: true })
      .fetchNext();
    // the SDK parsed the header into QueryMetrics
    expect(JSON.stringify(asked.queryMetrics)).toMatch(/"retrievedDocumentCount":1\b/);
    const path = `/dbs/${db.id}/colls/${container.id}/docs`;
    const body = JSON.stringify({ query: 'SELECT * FROM c', parameters: [] });
    const qh = { 'content-type': 'application/query+json', 'x-ms-documentdb-isquery': 'true', 'x-ms-documentdb-partitionkey': '["L"]' };
    const raw = await rawRequest(cosmos.emu, 'POST', path, { headers: { ...qh, 'x-ms-documentdb-populatequerymetrics': 'true' }, body });
    expect(raw.headers.get('x-ms-documentdb-query-metrics')).toMatch(
      /^totalExecutionTimeInMs=[\d.]+;.*retrievedDocumentCount=1;.*outputDocumentCount=1;/,
    );
    const plain = await rawRequest(cosmos.emu, 'POST', path, { headers: qh, body });
    expect(plain.headers.get('x-ms-documentdb-query-metrics')).toBeNull();
  });
});

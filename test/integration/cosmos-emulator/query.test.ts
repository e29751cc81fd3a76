import { Container } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';

interface Doc {
  id: string;
  pk: string;
  n: number;
  status: string;
}

describe('cosmos emulator: queries through @azure/cosmos', () => {
  let cosmos: TestCosmos;
  let container: Container;
  const keys = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
  const all: Doc[] = [];
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const db = await createTestDatabase(cosmos.client);
    container = (await db.containers.create({ id: 'q', partitionKey: { paths: ['/pk'] } })).container;
    for (const [k, pk] of keys.entries()) {
      for (let i = 0; i < 5; i++) {
        const doc = { id: `${pk}-${i}`, pk, n: k * 10 + i, status: i % 2 === 0 ? 'Accepted' : 'Succeeded' };
        all.push(doc);
        await container.items.create(doc);
      }
    }
  });
  afterAll(() => cosmos.close());

  it('answers a cross-partition query across every physical partition', async () => {
    const { resources } = await container.items.query<Doc>('SELECT * FROM c').fetchAll();
    expect(resources.map((d) => d.id).sort()).toEqual(all.map((d) => d.id).sort());
    // the documents really are spread over several partitions
    const ranges = await container.getFeedRanges();
    expect(ranges).toHaveLength(4);
  });

  it('with a partition key, answers only that logical partition', async () => {
    const { resources } = await container.items.query<Doc>('SELECT * FROM c', { partitionKey: 'charlie' }).fetchAll();
    expect(resources.map((d) => d.id).sort()).toEqual(['charlie-0', 'charlie-1', 'charlie-2', 'charlie-3', 'charlie-4']);
    const none = await container.items.query('SELECT * FROM c WHERE c.pk = "alpha"', { partitionKey: 'charlie' }).fetchAll();
    expect(none.resources).toEqual([]);
  });

  it('binds parameters and filters', async () => {
    const { resources } = await container.items
      .query<Doc>({
        query: 'SELECT * FROM c WHERE c.status = @s AND c.n >= @min',
        parameters: [
          { name: '@s', value: 'Accepted' },
          { name: '@min', value: 40 },
        ],
      })
      .fetchAll();
    const expected = all.filter((d) => d.status === 'Accepted' && d.n >= 40).map((d) => d.id);
    expect(resources.map((d) => d.id).sort()).toEqual(expected.sort());
  });

  it('orders across partitions and projects', async () => {
    const { resources } = await container.items.query<{ id: string; n: number }>('SELECT c.id, c.n FROM c ORDER BY c.n DESC').fetchAll();
    expect(resources.map((d) => d.n)).toEqual(all.map((d) => d.n).sort((a, b) => b - a));
    expect(Object.keys(resources[0]).sort()).toEqual(['id', 'n']);
  });

  it('computes aggregates with VALUE', async () => {
    const { resources } = await container.items.query<number>('SELECT VALUE COUNT(1) FROM c').fetchAll();
    expect(resources).toEqual([all.length]);
    const byKey = await container.items.query<number>('SELECT VALUE COUNT(1) FROM c', { partitionKey: 'alpha' }).fetchAll();
    expect(byKey.resources).toEqual([5]);
  });

  it('pages with x-ms-continuation and maxItemCount, without losing or repeating', async () => {
    const iterator = container.items.query<Doc>('SELECT * FROM c', { maxItemCount: 7 });
    const seen: string[] = [];
    let pages = 0;
    while (iterator.hasMoreResults()) {
      const page = await iterator.fetchNext();
      if (page.resources.length === 0 && !page.hasMoreResults) break;
      expect(page.resources.length).toBeLessThanOrEqual(7);
      seen.push(...page.resources.map((d) => d.id));
      pages++;
    }
    expect(pages).toBeGreaterThanOrEqual(6);
    expect(seen.sort()).toEqual(all.map((d) => d.id).sort());
    expect(cosmos.emu.counters().query).toBeGreaterThan(0);
  });

  it('ends a full page of one partition with a continuation and answers an empty last page, as a partition does', async () => {
    const pageSizes = async (iterator: ReturnType<Container['items']['readAll']>): Promise<number[]> => {
      const sizes: number[] = [];
      for await (const page of iterator.getAsyncIterator()) sizes.push(page.resources.length);
      return sizes;
    };
    // one logical partition of five documents in pages of 5, 2 and 3
    expect(await pageSizes(container.items.readAll({ partitionKey: 'delta', maxItemCount: 5 }))).toEqual([5, 0]);
    expect(await pageSizes(container.items.readAll({ partitionKey: 'delta', maxItemCount: 2 }))).toEqual([2, 2, 1]);
    expect(await pageSizes(container.items.readAll({ partitionKey: 'delta', maxItemCount: 3 }))).toEqual([3, 2]);
    // a container of one physical partition
    const db = cosmos.client.database(container.database.id);
    const single = (await db.containers.create({ id: 'single-range', partitionKey: { paths: ['/pk'] }, throughput: 400 })).container;
    for (const id of ['a', 'b', 'c', 'd']) await single.items.create({ id, pk: id });
    expect(await pageSizes(single.items.readAll({ maxItemCount: 2 }))).toEqual([2, 2, 0]);
    expect(await pageSizes(single.items.query('SELECT VALUE COUNT(1) FROM c', { maxItemCount: 1 }))).toEqual([1]);
    // a query the emulator answers whole over several partitions ends when its answer does
    expect(await pageSizes(container.items.readAll({ maxItemCount: 20 }))).toEqual([20, 20]);
  });

  it('lists every document with readAll (read feed)', async () => {
    const { resources } = await container.items.readAll<Doc>({ maxItemCount: 10 }).fetchAll();
    expect(resources).toHaveLength(all.length);
  });

  it('answers 400 with the reason for a query the engine cannot parse', async () => {
    await expect(container.items.query('SELECT FROM WHERE').fetchAll()).rejects.toMatchObject({
      code: 400,
      message: expect.stringContaining('Syntax error'),
    });
  });

  it('answers the query-plan request (the SDK fetches it alongside the first page)', async () => {
    cosmos.emu.resetCounters();
    await container.items.query('SELECT * FROM c WHERE c.n = 3').fetchAll();
    expect(cosmos.emu.counters().queryPlan).toBeGreaterThanOrEqual(1);
  });

  it('serves an ORDER BY on several properties only from a matching composite index (same paths; directions all as listed or all inverted), as the service does', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container: indexed } = await db.containers.create({
      id: 'composite',
      partitionKey: { paths: ['/pk'] },
      indexingPolicy: {
        compositeIndexes: [
          [
            { path: '/status', order: 'ascending' },
            { path: '/n', order: 'descending' },
          ],
        ],
      },
    });
    await Promise.all([1, 2, 3].map((n) => indexed.items.create({ id: `d${n}`, pk: `p${n}`, n, status: n === 2 ? 'b' : 'a' })));
    const ids = async (sql: string): Promise<string[]> => (await indexed.items.query<Doc>(sql).fetchAll()).resources.map((d) => d.id);
    expect(await ids('SELECT * FROM c ORDER BY c.status ASC, c.n DESC')).toEqual(['d3', 'd1', 'd2']);
    expect(await ids('SELECT * FROM c ORDER BY c.status DESC, c.n ASC')).toEqual(['d2', 'd1', 'd3']);
    const missing = /does not have a corresponding composite index/;
    await expect(ids('SELECT * FROM c ORDER BY c.status ASC, c.n ASC')).rejects.toMatchObject({
      code: 400,
      message: expect.stringMatching(missing),
    });
    await expect(ids('SELECT * FROM c ORDER BY c.n DESC, c.status ASC')).rejects.toMatchObject({ code: 400 });
    // the container without composite indexes: one property is fine, two are not
    expect((await container.items.query<Doc>('SELECT * FROM c ORDER BY c.n').fetchAll()).resources).toHaveLength(all.length);
    await expect(container.items.query('SELECT * FROM c ORDER BY c.status, c.n').fetchAll()).rejects.toMatchObject({ code: 400 });
  });

  it('fails a continuation token it did not issue as the service does: 400 "Invalid Continuation Token"', async () => {
    const first = await container.items.readAll({ maxItemCount: 2 }).fetchNext();
    expect(first.continuationToken).toBeDefined();
    const invalid = { code: 400, message: expect.stringContaining('Invalid Continuation Token') };
    await expect(container.items.readAll({ maxItemCount: 2, continuationToken: 'junk' }).fetchNext()).rejects.toMatchObject(invalid);
    await expect(
      container.items
        .query('SELECT DISTINCT VALUE c.status FROM c', { maxItemCount: 1, continuationToken: 'junk', partitionKey: 'alpha' })
        .fetchNext(),
    ).rejects.toMatchObject(invalid);
  });
});

import { Container, FeedOptions } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';

interface Doc {
  id: string;
  pk: string;
  n: number;
}

/**
 * With a query plan (forceQueryPlan) the SDK queries every range itself and merges: the plan must say
 * what TOP, ORDER BY and aggregates need, or the merge is wrong (TOP 6 over 3 ranges gave 18 rows).
 */
describe('cosmos emulator: the query plan lets the SDK merge per-range answers', () => {
  let cosmos: TestCosmos;
  let container: Container;
  const all: Doc[] = [];
  const forced: FeedOptions = { forceQueryPlan: true };
  beforeAll(async () => {
    cosmos = await startTestCosmos({ partitions: 3 });
    const db = await createTestDatabase(cosmos.client);
    container = (await db.containers.create({ id: 'plan', partitionKey: { paths: ['/pk'] } })).container;
    const keys = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india'];
    for (const [k, pk] of keys.entries()) {
      for (let i = 0; i < 4; i++) {
        const doc = { id: `${pk}-${i}`, pk, n: (k * 37 + i * 11) % 50 };
        all.push(doc);
        await container.items.create(doc);
      }
    }
  });
  afterAll(() => cosmos.close());

  const byN = (a: Doc, b: Doc): number => a.n - b.n;

  it('TOP n answers n rows, not n per range', async () => {
    const { resources } = await container.items.query<Doc>('SELECT TOP 6 * FROM c', forced).fetchAll();
    expect(resources).toHaveLength(6);
    const param = await container.items
      .query<Doc>({ query: 'SELECT TOP @k c.id FROM c', parameters: [{ name: '@k', value: 4 }] }, forced)
      .fetchAll();
    expect(param.resources).toHaveLength(4);
  });

  it('ORDER BY merges the ranges in order, ascending and descending, with projections and VALUE', async () => {
    const asc = await container.items.query<Doc>('SELECT * FROM c ORDER BY c.n', forced).fetchAll();
    expect(asc.resources.map((d) => d.n)).toEqual([...all].sort(byN).map((d) => d.n));
    expect(asc.resources[0]).toMatchObject({ id: expect.any(String), pk: expect.any(String) });
    const desc = await container.items
      .query<{ id: string; n: number }>('SELECT c.id, c.n FROM c WHERE c.n > 10 ORDER BY c.n DESC', forced)
      .fetchAll();
    const expected = all
      .filter((d) => d.n > 10)
      .map((d) => d.n)
      .sort((a, b) => b - a);
    expect(desc.resources.map((d) => d.n)).toEqual(expected);
    expect(Object.keys(desc.resources[0]).sort()).toEqual(['id', 'n']);
    const values = await container.items.query<number>('SELECT VALUE c.n FROM c ORDER BY c.n', forced).fetchAll();
    expect(values.resources).toEqual([...all].sort(byN).map((d) => d.n));
  });

  it('TOP with ORDER BY answers the global first n', async () => {
    const { resources } = await container.items.query<Doc>('SELECT TOP 5 * FROM c ORDER BY c.n DESC', forced).fetchAll();
    expect(resources.map((d) => d.n)).toEqual(
      [...all]
        .sort(byN)
        .reverse()
        .slice(0, 5)
        .map((d) => d.n),
    );
  });

  it('ORDER BY pages through small pages without losing or repeating', async () => {
    const iterator = container.items.query<Doc>('SELECT * FROM c ORDER BY c.n', { ...forced, maxItemCount: 5 });
    const seen: Doc[] = [];
    while (iterator.hasMoreResults()) seen.push(...(await iterator.fetchNext()).resources);
    expect(seen.map((d) => d.n)).toEqual([...all].sort(byN).map((d) => d.n));
    expect(new Set(seen.map((d) => `${d.pk}/${d.id}`)).size).toBe(all.length);
  });

  it('combines VALUE aggregates across ranges: COUNT, SUM, MIN, MAX, AVG', async () => {
    const one = async (sql: string): Promise<unknown[]> => (await container.items.query(sql, forced).fetchAll()).resources;
    const ns = all.map((d) => d.n);
    expect(await one('SELECT VALUE COUNT(1) FROM c')).toEqual([all.length]);
    expect(await one('SELECT VALUE SUM(c.n) FROM c')).toEqual([ns.reduce((a, b) => a + b, 0)]);
    expect(await one('SELECT VALUE MIN(c.n) FROM c')).toEqual([Math.min(...ns)]);
    expect(await one('SELECT VALUE MAX(c.n) FROM c WHERE c.pk = "alpha"')).toEqual([
      Math.max(...all.filter((d) => d.pk === 'alpha').map((d) => d.n)),
    ]);
    expect(await one('SELECT VALUE AVG(c.n) FROM c')).toEqual([ns.reduce((a, b) => a + b, 0) / ns.length]);
    expect(await one('SELECT VALUE MIN(c.n) FROM c WHERE c.pk = "nobody"')).toEqual([]);
  });

  it('without forceQueryPlan the emulator still answers the same queries whole', async () => {
    const top = await container.items.query<Doc>('SELECT TOP 6 * FROM c').fetchAll();
    expect(top.resources).toHaveLength(6);
    const count = await container.items.query('SELECT VALUE COUNT(1) FROM c').fetchAll();
    expect(count.resources).toEqual([all.length]);
  });

  it('refuses with 400 what it cannot plan: ORDER BY with GROUP BY', async () => {
    await expect(
      container.items.query('SELECT c.pk, COUNT(1) AS n FROM c GROUP BY c.pk ORDER BY c.pk', forced).fetchAll(),
    ).rejects.toMatchObject({
      code: 400,
      message: expect.stringContaining('cannot plan'),
    });
  });
});

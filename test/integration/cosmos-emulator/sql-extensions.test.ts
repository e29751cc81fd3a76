import { Container, FeedOptions, SqlQuerySpec } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, hashV2Key, startTestCosmos } from '../../helpers/cosmos';

interface Doc {
  id: string;
  pk: string;
  n: number;
  tag: string;
  name: string;
  when: string;
  opt?: number;
}

const NAMES = ['alpha', 'alto', 'bravo', 'charlie', 'delta', 'a_b', '50% off', 'Alpine', 'echo'];
const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8'];

/**
 * DISTINCT, OFFSET/LIMIT, GROUP BY with aggregates, MakeList/MakeSet, LIKE, IIF and date functions,
 * over 3 physical partitions, answered whole and through the SDK's query pipeline (forceQueryPlan,
 * where each range answers and the SDK merges by the plan) and page by page: both must give the answer
 * computed here from the documents.
 */
describe('cosmos emulator: SQL beyond the engine, answered whole and through the SDK pipeline', () => {
  let cosmos: TestCosmos;
  let container: Container;
  const docs: Doc[] = [];
  const modes: Array<[string, FeedOptions]> = [
    ['whole', {}],
    ['planned', { forceQueryPlan: true }],
    ['planned, pages of 2', { forceQueryPlan: true, maxItemCount: 2 }],
    ['whole, pages of 2', { maxItemCount: 2 }],
  ];
  const run = async <T>(q: string | SqlQuerySpec, options: FeedOptions): Promise<T[]> =>
    (await container.items.query<T>(q, options).fetchAll()).resources;

  beforeAll(async () => {
    cosmos = await startTestCosmos({ partitions: 3 });
    const db = await createTestDatabase(cosmos.client);
    container = (await db.containers.create({ id: 'sqlx', partitionKey: hashV2Key('/pk') })).container;
    for (let i = 0; i < 36; i++) {
      const doc: Doc = {
        id: `d${i}`,
        pk: KEYS[i % KEYS.length],
        n: (i * 7) % 36,
        tag: ['x', 'y', 'z'][i % 3],
        name: NAMES[i % NAMES.length],
        when: new Date(Date.UTC(2024, 0, 31, 10, i, 30, 250)).toISOString().replace('Z', '0000Z'),
        ...(i % 4 === 0 ? { opt: i } : {}),
      };
      docs.push(doc);
      await container.items.create(doc);
    }
    // the documents are spread over all 3 ranges
    const ranges = (await container.readPartitionKeyRanges().fetchAll()).resources;
    expect(ranges).toHaveLength(3);
  });
  afterAll(() => cosmos.close());

  const ids = (rows: Doc[]): string[] => rows.map((d) => d.id);
  const sorted = <T>(xs: T[]): T[] => [...xs].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

  it.each(modes)('OFFSET/LIMIT after ORDER BY, with literals and parameters (%s)', async (_, options) => {
    const byN = [...docs].sort((a, b) => a.n - b.n);
    const page = await run<string>('SELECT VALUE c.id FROM c ORDER BY c.n OFFSET 5 LIMIT 7', options);
    expect(page).toEqual(ids(byN).slice(5, 12));
    const params = await run<string>(
      {
        query: 'SELECT VALUE c.id FROM c ORDER BY c.n DESC OFFSET @o LIMIT @l',
        parameters: [
          { name: '@o', value: 30 },
          { name: '@l', value: 10 },
        ],
      },
      options,
    );
    expect(params).toEqual(ids([...byN].reverse()).slice(30));
    const unordered = await run<Doc>('SELECT * FROM c WHERE c.n >= 10 OFFSET 3 LIMIT 10', options);
    expect(unordered).toHaveLength(10);
    expect(new Set(ids(unordered)).size).toBe(10);
    expect(unordered.every((d) => d.n >= 10)).toBe(true);
  });

  it('resumes OFFSET/LIMIT queries from the SDK continuation tokens, a page per new iterator (enableQueryControl)', async () => {
    const resume = async (q: string): Promise<number[]> => {
      const seen: number[] = [];
      let token: string | undefined;
      for (let round = 0; round < 20; round++) {
        const page = await container.items
          .query<number>(q, { forceQueryPlan: true, enableQueryControl: true, maxItemCount: 3, continuationToken: token })
          .fetchNext();
        seen.push(...page.resources);
        token = page.continuationToken;
        if (!token) return seen;
      }
      throw new Error(`no end of ${q} after 20 pages`);
    };
    const ordered = await resume('SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 4 LIMIT 11');
    expect(ordered).toEqual(
      [...docs]
        .map((d) => d.n)
        .sort((a, b) => a - b)
        .slice(4, 15),
    );
    const unordered = await resume('SELECT VALUE c.n FROM c OFFSET 4 LIMIT 11');
    expect(new Set(unordered).size).toBe(11);
  });

  it.each(modes)('DISTINCT, unordered and ordered, with TOP (%s)', async (_, options) => {
    expect(sorted(await run<string>('SELECT DISTINCT VALUE c.tag FROM c', options))).toEqual(['x', 'y', 'z']);
    const pairs = await run<{ tag: string; name: string }>('SELECT DISTINCT c.tag, c.name FROM c', options);
    expect(sorted(pairs)).toEqual(
      sorted(
        [...new Set(docs.map((d) => JSON.stringify({ tag: d.tag, name: d.name })))].map(
          (j) => JSON.parse(j) as { tag: string; name: string },
        ),
      ),
    );
    expect(await run<string>('SELECT DISTINCT VALUE c.name FROM c ORDER BY c.name', options)).toEqual([...new Set(NAMES)].sort());
    expect(await run<string>('SELECT DISTINCT TOP 2 VALUE c.tag FROM c ORDER BY c.tag DESC', options)).toEqual(['z', 'y']);
    expect(await run<string>('SELECT DISTINCT VALUE c.tag FROM c ORDER BY c.tag OFFSET 1 LIMIT 5', options)).toEqual(['y', 'z']);
  });

  it.each(modes)('GROUP BY with COUNT, SUM, MIN, MAX, AVG, MakeList and MakeSet (%s)', async (_, options) => {
    const groups = await run<{ tag: string; n: number; total: number; lo: number; hi: number; mean: number; ns: number[]; pks: string[] }>(
      'SELECT c.tag, COUNT(1) AS n, SUM(c.n) AS total, MIN(c.n) AS lo, MAX(c.n) AS hi, AVG(c.n) AS mean, MakeList(c.n) AS ns, MakeSet(c.pk) AS pks FROM c GROUP BY c.tag',
      options,
    );
    const expected = ['x', 'y', 'z'].map((tag) => {
      const of = docs.filter((d) => d.tag === tag).map((d) => d.n);
      const total = of.reduce((a, b) => a + b, 0);
      const pks = [...new Set(docs.filter((d) => d.tag === tag).map((d) => d.pk))].sort();
      return {
        tag,
        n: of.length,
        total,
        lo: Math.min(...of),
        hi: Math.max(...of),
        mean: total / of.length,
        ns: [...of].sort((a, b) => a - b),
        pks,
      };
    });
    const normalised = groups
      .map((g) => ({ ...g, ns: [...g.ns].sort((a, b) => a - b), pks: [...g.pks].sort() }))
      .sort((a, b) => (a.tag < b.tag ? -1 : 1));
    expect(normalised).toEqual(expected);

    const counts = await run<number>(
      { query: 'SELECT VALUE COUNT(1) FROM c WHERE c.n < @max GROUP BY c.pk', parameters: [{ name: '@max', value: 20 }] },
      options,
    );
    const perKey = KEYS.map((k) => docs.filter((d) => d.pk === k && d.n < 20).length).filter((c) => c > 0);
    expect(sorted(counts)).toEqual(sorted(perKey));
    expect(sorted(await run<string>('SELECT VALUE c.tag FROM c GROUP BY c.tag', options))).toEqual(['x', 'y', 'z']);
    const lowered = await run<{ initial: string; n: number }>(
      'SELECT LEFT(LOWER(c.name), 1) AS initial, COUNT(1) AS n FROM c GROUP BY LEFT(LOWER(c.name), 1)',
      options,
    );
    const initials = docs.map((d) => d.name.toLowerCase()[0]);
    expect(sorted(lowered)).toEqual(
      sorted([...new Set(initials)].map((initial) => ({ initial, n: initials.filter((i) => i === initial).length }))),
    );
    const sizes = await run<{ size: string; n: number }>(
      "SELECT IIF(c.n > 17, 'big', 'small') AS size, COUNT(1) AS n FROM c GROUP BY IIF(c.n > 17, 'big', 'small')",
      options,
    );
    expect(sorted(sizes)).toEqual(
      sorted([
        { size: 'big', n: docs.filter((d) => d.n > 17).length },
        { size: 'small', n: docs.filter((d) => d.n <= 17).length },
      ]),
    );
    const twoKeys = await run<{ tag: string; name: string; c: number }>(
      'SELECT c.tag, c.name, COUNT(c.opt) AS c FROM c GROUP BY c.tag, c.name',
      options,
    );
    expect(twoKeys).toHaveLength(new Set(docs.map((d) => `${d.tag}/${d.name}`)).size);
    expect(twoKeys.reduce((a, g) => a + g.c, 0)).toBe(docs.filter((d) => d.opt !== undefined).length);
  });

  it.each(modes)('aggregates without GROUP BY: a SELECT list, MakeSet and MakeList values, and over nothing (%s)', async (_, options) => {
    expect(await run('SELECT COUNT(1) AS n, MAX(c.n) AS hi FROM c', options)).toEqual([{ n: 36, hi: 35 }]);
    const set = await run<string[]>('SELECT VALUE MakeSet(c.tag) FROM c', options);
    expect(set.map((s) => [...s].sort())).toEqual([['x', 'y', 'z']]);
    const list = await run<number[]>('SELECT VALUE MakeList(c.n) FROM c WHERE c.tag = "x"', options);
    expect(list.map((l) => [...l].sort((a, b) => a - b))).toEqual([
      docs
        .filter((d) => d.tag === 'x')
        .map((d) => d.n)
        .sort((a, b) => a - b),
    ]);
    expect(await run('SELECT COUNT(1) AS n FROM c WHERE c.n > 1000', options)).toEqual([{ n: 0 }]);
    expect(await run('SELECT VALUE COUNTIF(c.n > 20) FROM c', options)).toEqual([docs.filter((d) => d.n > 20).length]);
    const ifs = await run<{ tag: string; big: number }>('SELECT c.tag, COUNTIF(c.n > 20) AS big FROM c GROUP BY c.tag', options);
    expect(sorted(ifs)).toEqual(sorted(['x', 'y', 'z'].map((tag) => ({ tag, big: docs.filter((d) => d.tag === tag && d.n > 20).length }))));
  });

  it('answers whole in one request, and with forceQueryPlan the SDK queries each range by the plan', async () => {
    const before = cosmos.emu.counters();
    await run('SELECT c.tag, COUNT(1) AS n FROM c GROUP BY c.tag', {});
    const whole = cosmos.emu.counters();
    expect(whole.query - before.query).toBe(1); // (the SDK also fetches a plan on the side, unused)
    await run('SELECT c.tag, COUNT(1) AS n FROM c GROUP BY c.tag', { forceQueryPlan: true });
    const planned = cosmos.emu.counters();
    expect([planned.queryPlan - whole.queryPlan, planned.query - whole.query]).toEqual([1, 3]);
  });

  it('groups within one logical partition (partition key option)', async () => {
    const rows = await run<{ tag: string; n: number }>('SELECT c.tag, COUNT(1) AS n FROM c GROUP BY c.tag', { partitionKey: 'k4' });
    const mine = docs.filter((d) => d.pk === 'k4');
    expect(sorted(rows)).toEqual(
      sorted([...new Set(mine.map((d) => d.tag))].map((tag) => ({ tag, n: mine.filter((d) => d.tag === tag).length }))),
    );
  });

  it.each(modes)('LIKE with %, _, character classes, NOT and ESCAPE; IIF (%s)', async (_, options) => {
    const like = async (pattern: string): Promise<string[]> =>
      sorted(
        await run<string>(
          { query: 'SELECT DISTINCT VALUE c.name FROM c WHERE c.name LIKE @p', parameters: [{ name: '@p', value: pattern }] },
          options,
        ),
      );
    expect(await like('al%')).toEqual(['alpha', 'alto']);
    expect(await like('%l_o')).toEqual(['alto']);
    expect(await like('[a-c]%')).toEqual(['a_b', 'alpha', 'alto', 'bravo', 'charlie']);
    expect(await like('[^a]%')).toEqual(['50% off', 'Alpine', 'bravo', 'charlie', 'delta', 'echo']);
    expect(sorted(await run<string>("SELECT DISTINCT VALUE c.name FROM c WHERE c.name LIKE '%!%%' ESCAPE '!'", options))).toEqual([
      '50% off',
    ]);
    expect(sorted(await run<string>("SELECT DISTINCT VALUE c.name FROM c WHERE c.name LIKE 'a!_%' ESCAPE '!'", options))).toEqual(['a_b']);
    const notLike = await run<string>("SELECT DISTINCT VALUE c.name FROM c WHERE c.name NOT LIKE '%a%'", options);
    expect(sorted(notLike)).toEqual(['50% off', 'Alpine', 'echo']); // case-sensitive, as the service
    const sizes = await run<{ id: string; size: string }>(
      "SELECT c.id, IIF(c.n > 30, 'big', IIF(c.n > 10, 'medium', 'small')) AS size FROM c",
      options,
    );
    expect(sorted(sizes)).toEqual(sorted(docs.map((d) => ({ id: d.id, size: d.n > 30 ? 'big' : d.n > 10 ? 'medium' : 'small' }))));
    expect(await run("SELECT VALUE IIF('true', 1, 2) FROM c WHERE c.id = 'd1'", options)).toEqual([2]);
  });

  it('date and time functions', async () => {
    const one = async (expr: string): Promise<unknown> => (await run(`SELECT VALUE ${expr} FROM c WHERE c.id = 'd0'`, {}))[0];
    expect(await one('c.when')).toBe('2024-01-31T10:00:30.2500000Z');
    expect(await one("DateTimeAdd('mm', 1, c.when)")).toBe('2024-02-29T10:00:30.2500000Z');
    expect(await one("DateTimeAdd('yyyy', -1, '2024-02-29T00:00:00.0000000Z')")).toBe('2023-02-28T00:00:00.0000000Z');
    expect(await one("DateTimeAdd('hh', 20, c.when)")).toBe('2024-02-01T06:00:30.2500000Z');
    expect(await one("DateTimeAdd('ms', 1, c.when)")).toBe('2024-01-31T10:00:30.2510000Z');
    expect(await one("DateTimePart('month', c.when)")).toBe(1);
    expect(await one("DateTimePart('ms', c.when)")).toBe(250);
    expect(await one("DateTimeDiff('day', c.when, '2024-02-01T00:00:00.0000000Z')")).toBe(1);
    expect(await one("DateTimeDiff('month', '2023-12-31T23:59:59.0000000Z', c.when)")).toBe(1);
    expect(await one("DateTimeDiff('second', c.when, DateTimeAdd('minute', 2, c.when))")).toBe(120);
    expect(await one('DateTimeToTimestamp(c.when)')).toBe(Date.UTC(2024, 0, 31, 10, 0, 30, 250));
    expect(await one('TimestampToDateTime(1704067200000)')).toBe('2024-01-01T00:00:00.0000000Z');
    expect(await one('DateTimeFromParts(2020, 2, 29, 12, 30)')).toBe('2020-02-29T12:30:00.0000000Z');
    expect(await one('DateTimeFromParts(2021, 2, 29)')).toBeUndefined();
    expect(await one("DateTimeAdd('fortnight', 1, c.when)")).toBeUndefined();
    expect(await one("DateTimePart('day', 'not a date')")).toBeUndefined();
    expect(await one('DateTimeToTicks(c.when)')).toBe(Date.UTC(2024, 0, 31, 10, 0, 30, 250) * 10_000 + 621_355_968_000_000_000);
    expect(await one('TicksToDateTime(DateTimeToTicks("2024-01-31T00:00:00.0000000Z"))')).toBe('2024-01-31T00:00:00.0000000Z');
    expect(await one("DateTimeBin(c.when, 'hh')")).toBe('2024-01-31T10:00:00.0000000Z');
    const ticks = (await one('GetCurrentTicks()')) as number;
    expect(Math.abs((ticks - 621_355_968_000_000_000) / 10_000 - Date.now())).toBeLessThan(60_000);
    const now = (await one('GetCurrentDateTime()')) as string;
    expect(now).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}Z$/);
    expect(Math.abs(Date.parse(now) - Date.now())).toBeLessThan(60_000);
    const ts = (await one('GetCurrentTimestamp()')) as number;
    expect(Math.abs(ts - Date.now())).toBeLessThan(60_000);
    const recent = await run<string>("SELECT VALUE c.id FROM c WHERE DateTimeDiff('minute', c.when, '2024-01-31T10:05:00.0000000Z') > 0", {
      forceQueryPlan: true,
    });
    expect(sorted(recent)).toEqual(sorted(['d0', 'd1', 'd2', 'd3', 'd4']));
  });

  it.each(modes)('refuses with 400 what the emulator does not run (%s)', async (_, options) => {
    for (const q of [
      'SELECT c.tag, COUNT(1) AS n FROM c GROUP BY c.tag ORDER BY c.tag',
      'SELECT * FROM c GROUP BY c.tag',
      'SELECT c.name, COUNT(1) AS n FROM c GROUP BY c.tag',
      'SELECT * FROM c OFFSET 1',
      'SELECT * FROM c LIMIT 1',
      'SELECT TOP 1 * FROM c OFFSET 1 LIMIT 1',
      'SELECT VALUE udf.double(c.n) FROM c',
      'SELECT * FROM c WHERE c.name LIKE c.tag',
    ]) {
      await expect(run(q, options)).rejects.toMatchObject({ code: 400 });
    }
  });
});

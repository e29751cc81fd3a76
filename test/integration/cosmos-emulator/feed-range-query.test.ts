import type { Container } from '@azure/cosmos';
import { feedRangeHeaders, feedRangeScopes, type EpkRange } from '../../../src/cosmos/feed-range-scope';
import { effectivePartitionKey, rangeContains } from '../../../src/changefeed/util/epk';
import { createTestDatabase, hashV2Key, startTestCosmos, type TestCosmos } from '../../helpers/cosmos';

interface Doc {
  id: string;
  pk: string;
}

/**
 * A query scoped to a feed range, as the service takes it (the .NET and Java SDKs' FeedRange on
 * queries; @azure/cosmos 4.9 has none, so opstream sends the same headers as `initialHeaders`): the
 * partition key range id, and the part of it wanted as start/end EPK. Through the real SDK.
 */
describe('cosmos emulator: queries scoped to a feed range', () => {
  let cosmos: TestCosmos;
  let container: Container;
  const docs: Doc[] = [];
  const epkOf = (d: Doc): string => effectivePartitionKey(d.pk);

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const db = await createTestDatabase(cosmos.client);
    container = (await db.containers.create({ id: 'scoped', partitionKey: hashV2Key('/pk') })).container;
    for (let i = 0; i < 200; i++) {
      const doc = { id: `d-${i}`, pk: `key-${i}` };
      docs.push(doc);
      await container.items.create(doc);
    }
  });
  afterAll(() => cosmos.close());

  /** Every document the scoped query answers, page by page (`pageSize` at a time), and how many pages. */
  async function scopedQuery(range: EpkRange, pageSize: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let pages = 0;
    for (const scope of await feedRangeScopes(container, range)) {
      const iterator = container.items
        .query<Doc>('SELECT * FROM c', { initialHeaders: feedRangeHeaders(scope), maxItemCount: pageSize })
        .getAsyncIterator();
      for await (const page of iterator) {
        expect(page.resources.length).toBeLessThanOrEqual(pageSize);
        pages++;
        ids.push(...page.resources.map((d) => d.id));
      }
    }
    return { ids: ids.sort(), pages };
  }

  const expected = (range: EpkRange): string[] =>
    docs
      .filter((d) => rangeContains(range, epkOf(d)))
      .map((d) => d.id)
      .sort();

  it('part of one physical partition: only the documents whose EPK falls in it, every one once, paged', async () => {
    const [first] = (await container.readPartitionKeyRanges().fetchAll()).resources;
    if (!first) throw new Error('no partition key range');
    const inFirst = docs
      .map(epkOf)
      .filter((e) => rangeContains({ min: first.minInclusive, max: first.maxExclusive }, e))
      .sort();
    const range = { min: first.minInclusive, max: inFirst[Math.floor(inFirst.length / 2)] as string };
    const scopes = await feedRangeScopes(container, range);
    expect(scopes).toEqual([{ partitionKeyRangeId: first.id, epk: range }]);
    const { ids, pages } = await scopedQuery(range, 7);
    expect(ids).toEqual(expected(range));
    expect(ids.length).toBeGreaterThan(10);
    expect(pages).toBeGreaterThan(1);
  });

  it('a range over several partitions: one scoped query each, together exactly that range', async () => {
    const ranges = (await container.readPartitionKeyRanges().fetchAll()).resources;
    expect(ranges.length).toBe(4);
    const all = docs.map(epkOf).sort();
    const range = { min: all[30] as string, max: all[170] as string };
    const scopes = await feedRangeScopes(container, range);
    expect(scopes.length).toBeGreaterThan(1);
    expect((await scopedQuery(range, 50)).ids).toEqual(expected(range));
  });

  it('a whole partition is named by its id alone; the server reads only it (fewer request units than the whole container)', async () => {
    const ranges = (await container.readPartitionKeyRanges().fetchAll()).resources;
    const first = ranges[0] as { id: string; minInclusive: string; maxExclusive: string };
    const range = { min: first.minInclusive, max: first.maxExclusive };
    expect(await feedRangeScopes(container, range)).toEqual([{ partitionKeyRangeId: first.id }]);
    const charge = async (run: () => Promise<unknown>): Promise<number> => {
      cosmos.emu.resetCounters();
      await run();
      return cosmos.emu.counters().requestUnits.query;
    };
    const scoped = await charge(() => scopedQuery(range, 1000));
    const whole = await charge(() => container.items.query('SELECT * FROM c', { maxItemCount: 1000 }).fetchAll());
    expect((await scopedQuery(range, 1000)).ids).toEqual(expected(range));
    expect(scoped).toBeLessThan(whole * 0.6);
  });
});

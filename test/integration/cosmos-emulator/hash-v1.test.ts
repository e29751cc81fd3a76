import {
  ChangeFeedStartFrom,
  Container,
  FeedRange,
  PartitionKeyDefinition,
  PartitionKeyDefinitionVersion,
  PartitionKeyKind,
} from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';
import { sdkHashV1 } from '../../unit/cosmos-emulator/sdk-internals';
import { drain } from './feed-util';

interface Doc {
  id: string;
  pk: string | number | boolean;
  n: number;
}

const inRange = (epk: string, r: FeedRange): boolean => epk >= r.minInclusive && (r.maxExclusive === 'FF' || epk < r.maxExclusive);

/**
 * The same checks for a container created with `version: 1` and one created with no version at all,
 * which the service (and so the emulator) makes version 1 and reads back without a version.
 */
const definitions: Array<[string, PartitionKeyDefinition, PartitionKeyDefinition]> = [
  [
    'version 1',
    { paths: ['/pk'], kind: PartitionKeyKind.Hash, version: PartitionKeyDefinitionVersion.V1 },
    { paths: ['/pk'], kind: PartitionKeyKind.Hash, version: 1 },
  ],
  ['no version (the SDK sends none unless told)', { paths: ['/pk'] }, { paths: ['/pk'], kind: PartitionKeyKind.Hash }],
];

describe.each(definitions)(
  'cosmos emulator: hash version 1 partition keys through @azure/cosmos, container created with %s',
  (_, definition, echoed) => {
    let cosmos: TestCosmos;
    let container: Container;
    const docs: Doc[] = [];
    const longA = `${'L'.repeat(100)}-a`;
    const longB = `${'L'.repeat(100)}-b`;
    beforeAll(async () => {
      cosmos = await startTestCosmos({ partitions: 3 });
      const db = await createTestDatabase(cosmos.client);
      container = (await db.containers.create({ id: 'v1', partitionKey: definition })).container;
      const keys: Array<string | number | boolean> = [longA, longB, 0, -2.5, 1e9, true, false, 'ünïcødé 日本'];
      for (let i = 0; i < 40; i++) keys.push(`tenant-${i}`);
      for (const [i, pk] of keys.entries()) {
        const doc = { id: `d${i}`, pk, n: i };
        docs.push(doc);
        await container.items.create(doc);
      }
    });
    afterAll(() => cosmos.close());

    it('reads back as the service answers, and places every document on the feed range the SDK hashes its key to', async () => {
      const { resource } = await container.read();
      expect(resource?.partitionKey).toEqual(echoed);
      const ranges = await container.getFeedRanges();
      expect(ranges.length).toBe(3);
      // v1 bounds: encoded 32-bit hashes (every v1 EPK starts with 05), not the v2 hex space's thirds
      expect(
        ranges
          .map((r) => r.minInclusive)
          .slice(1)
          .every((min) => min.startsWith('05')),
      ).toBe(true);
      const placed = new Map<string, number>();
      for (const [i, range] of ranges.entries()) {
        const page = await drain(container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range) }));
        for (const d of page.items) placed.set(d.id, i);
      }
      for (const d of docs) expect([d.id, placed.get(d.id)]).toEqual([d.id, ranges.findIndex((r) => inRange(sdkHashV1([d.pk]), r))]);
      // the 3 ranges each hold some of the 48 documents
      expect(new Set(placed.values()).size).toBe(3);
    });

    it('answers point reads, patches and partition-key queries for strings, numbers, booleans and keys over 100 characters', async () => {
      for (const d of docs) expect((await container.item(d.id, d.pk).read<Doc>()).resource?.n).toBe(d.n);
      const patched = await container.item('d1', longB).patch<Doc>([{ op: 'incr', path: '/n', value: 10 }]);
      expect(patched.resource?.n).toBe(11);
      const num = await container.items.query<Doc>('SELECT * FROM c', { partitionKey: -2.5 }).fetchAll();
      expect(num.resources.map((d) => d.id)).toEqual(['d3']);
      // bulk: the SDK groups operations by the range its own v1 hash names; the emulator checks each against it
      const bulk = await container.items.bulk(
        ['b-x', 'b-y', 'b-z', 7, false].map((pk, i) => ({ operationType: 'Create' as const, resourceBody: { id: `bulk${i}`, pk, n: -1 } })),
      );
      expect(bulk.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
      await Promise.all(bulk.map((_, i) => container.item(`bulk${i}`, ['b-x', 'b-y', 'b-z', 7, false][i]).delete()));
      const all = await container.items.query<number>('SELECT VALUE COUNT(1) FROM c', { forceQueryPlan: true }).fetchAll();
      expect(all.resources).toEqual([docs.length]);
    });

    it('makes keys that share their first 100 characters one logical partition, as the service does', async () => {
      // One id space: d0 lives under longA, so longB finds it, and a second d0 under longB conflicts.
      expect((await container.item('d0', longB).read<Doc>()).resource).toMatchObject({ id: 'd0', pk: longA });
      await expect(container.items.create({ id: 'd0', pk: longB, n: -1 })).rejects.toMatchObject({ code: 409 });
      // One query scope and one change-feed scope: either key sees both documents.
      for (const pk of [longA, longB]) {
        const ids = await container.items.query<string>('SELECT VALUE c.id FROM c', { partitionKey: pk }).fetchAll();
        expect(ids.resources.sort()).toEqual(['d0', 'd1']);
        const feed = await drain(container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(pk) }));
        expect(feed.items.map((d) => d.id).sort()).toEqual(['d0', 'd1']);
      }
    });

    it('keeps serving reads, queries and every feed after a split, the children placed as the SDK hashes', async () => {
      const iterator = container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Now() });
      await drain(iterator);
      const byKey = container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Now('tenant-7') });
      await drain(byKey);
      const [first] = (await container.readPartitionKeyRanges().fetchAll()).resources;
      const { children } = await cosmos.emu.splitRange(container.database.id, container.id, first.id);
      expect(children.length).toBe(2);

      for (const d of docs) await container.item(d.id, d.pk).patch([{ op: 'set', path: '/after', value: true }]);
      const changed = await drain(iterator);
      expect(changed.items.map((d) => d.id).sort()).toEqual(docs.map((d) => d.id).sort());
      expect((await drain(byKey)).items.map((d) => d.id)).toEqual([docs.find((d) => d.pk === 'tenant-7')?.id]);

      const ranges = await container.getFeedRanges();
      expect(ranges.length).toBe(4);
      for (const range of ranges) {
        const page = await drain(container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range) }));
        for (const d of page.items) expect([d.id, inRange(sdkHashV1([d.pk]), range)]).toEqual([d.id, true]);
      }
      for (const d of docs) expect((await container.item(d.id, d.pk).read<Doc>()).resource?.id).toBe(d.id);
      const ids = await container.items.query<string>('SELECT VALUE c.id FROM c ORDER BY c.n', { forceQueryPlan: true }).fetchAll();
      const n = (d: Doc): number => (d.id === 'd1' ? d.n + 10 : d.n); // patched above
      expect(ids.resources).toEqual([...docs].sort((a, b) => n(a) - n(b)).map((d) => d.id));
    });
  },
);

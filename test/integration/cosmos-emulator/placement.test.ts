import { ChangeFeedStartFrom } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, hashV2Key, startTestCosmos } from '../../helpers/cosmos';
import { sdkHashV2 } from '../../unit/cosmos-emulator/sdk-internals';
import { drain } from './feed-util';
import { adminRequest } from './raw-client';

describe('cosmos emulator: document placement agrees with the SDK', () => {
  let cosmos: TestCosmos;
  beforeAll(async () => {
    cosmos = await startTestCosmos({ partitions: 4 });
  });
  afterAll(() => cosmos.close());

  it('puts every document in the feed range that holds the SDK hash of its partition key', async () => {
    const db = await createTestDatabase(cosmos.client);
    const container = (await db.containers.create({ id: 'placement', partitionKey: hashV2Key('/k') })).container;
    const keys: (string | number | boolean | null)[] = [true, false, null, 0, -1, 2.5, 1e12];
    for (let i = 0; i < 60; i++) keys.push(`subscription-${i}`);
    for (const [i, k] of keys.entries()) await container.items.create({ id: `doc-${i}`, k });

    const ranges = await container.getFeedRanges();
    expect(ranges.map((r) => [r.minInclusive, r.maxExclusive])).toEqual([
      ['', '10'],
      ['10', '20'],
      ['20', '30'],
      ['30', 'FF'],
    ]);
    const placed = new Map<string, number>();
    for (const [index, range] of ranges.entries()) {
      const { items } = await drain(
        container.items.getChangeFeedIterator<{ id: string; k: unknown }>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range) }),
      );
      expect(items.length).toBeGreaterThan(0); // the keys really spread over all four partitions
      for (const doc of items) {
        const epk = sdkHashV2([doc.k]);
        expect(epk >= range.minInclusive && epk < range.maxExclusive).toBe(true);
        placed.set(doc.id, index);
      }
    }
    expect(placed.size).toBe(keys.length);

    // the emulator's own bookkeeping says the same
    const admin = (await adminRequest(cosmos.emu, 'GET', `ranges/${db.id}/placement`)).json as {
      ranges: { id: string; documents: number }[];
    };
    const counts = [0, 1, 2, 3].map((i) => [...placed.values()].filter((v) => v === i).length);
    expect(admin.ranges.map((r) => r.documents)).toEqual(counts);
  });
});

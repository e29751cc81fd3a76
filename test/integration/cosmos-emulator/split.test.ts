import { ChangeFeedStartFrom, Container } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, hashV2Key, startTestCosmos } from '../../helpers/cosmos';
import { drain } from './feed-util';
import { adminRequest, rawRequest } from './raw-client';

interface Doc {
  id: string;
  pk: string;
}

interface PkRange {
  id: string;
  minInclusive: string;
  maxExclusive: string;
  parents: string[];
}

describe('cosmos emulator: splitting a partition key range while clients run', () => {
  let cosmos: TestCosmos;
  let dbId: string;
  let container: Container;
  let n = 0;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    dbId = (await createTestDatabase(cosmos.client)).id;
  });
  afterAll(() => cosmos.close());
  beforeEach(async () => {
    container = (await cosmos.client.database(dbId).containers.create({ id: `split-${++n}`, partitionKey: hashV2Key('/pk') })).container;
  });

  async function create(from: number, to: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = from; i < to; i++) {
      await container.items.create({ id: `doc-${i}`, pk: `key-${i % 23}` });
      ids.push(`doc-${i}`);
    }
    return ids;
  }

  async function pkranges(): Promise<PkRange[]> {
    const res = await rawRequest(cosmos.emu, 'GET', `/dbs/${dbId}/colls/${container.id}/pkranges`);
    expect(res.status).toBe(200);
    return (res.json as { PartitionKeyRanges: PkRange[] }).PartitionKeyRanges;
  }

  it('lists the two children with their parent in /pkranges and answers 410/1002 for the old range id', async () => {
    await create(0, 20);
    const before = await pkranges();
    expect(before.map((r) => [r.minInclusive, r.maxExclusive])).toEqual([
      ['', '10'],
      ['10', '20'],
      ['20', '30'],
      ['30', 'FF'],
    ]);
    const result = await cosmos.emu.splitRange(dbId, container.id, '1');
    expect(result).toEqual({ parent: '1', children: ['4', '5'] });
    const after = await pkranges();
    expect(after.map((r) => r.id).sort()).toEqual(['0', '2', '3', '4', '5']);
    const children = after.filter((r) => r.parents.includes('1'));
    expect(children.map((r) => [r.minInclusive, r.maxExclusive])).toEqual([
      ['10', '18'],
      ['18', '20'],
    ]);
    const gone = await rawRequest(cosmos.emu, 'GET', `/dbs/${dbId}/colls/${container.id}/docs`, {
      headers: { 'a-im': 'Incremental feed', 'x-ms-documentdb-partitionkeyrangeid': '1' },
    });
    expect(gone.status).toBe(410);
    expect(gone.headers.get('x-ms-substatus')).toBe('1002');
    expect(gone.json).toMatchObject({ code: 'Gone', message: expect.stringContaining('1') });
    // nothing is lost: reads and queries see every document
    const { resources } = await container.items.query('SELECT VALUE COUNT(1) FROM c').fetchAll();
    expect(resources).toEqual([20]);
    expect((await container.item('doc-7', 'key-7').read()).statusCode).toBe(200);
    expect(await container.getFeedRanges()).toHaveLength(5);
  });

  it('a running SDK change-feed iterator continues across splits without losing or repeating changes', async () => {
    const written = await create(0, 40);
    const iterator = container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(), maxItemCount: 5 });
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await iterator.readNext();
      if (page.statusCode === 200) seen.push(...page.result.map((d) => d.id));
    }
    expect(seen.length).toBeGreaterThan(0);
    await cosmos.emu.splitRange(dbId, container.id, '0');
    await cosmos.emu.splitRange(dbId, container.id, '2');
    written.push(...(await create(40, 70)));
    for (let i = 0; i < 4; i++) {
      const page = await iterator.readNext();
      if (page.statusCode === 200) seen.push(...page.result.map((d) => d.id));
    }
    await cosmos.emu.splitRange(dbId, container.id, '4'); // a child splits again
    written.push(...(await create(70, 90)));
    seen.push(...(await drain(iterator)).items.map((d) => d.id));
    expect(seen.length).toBe(new Set(seen).size);
    expect(seen.sort()).toEqual(written.sort());
    expect(cosmos.emu.counters().changeFeedOther).toBeGreaterThanOrEqual(1); // the 410s the SDK recovered from
    // and it keeps following new writes afterwards
    await container.items.create({ id: 'late', pk: 'key-0' });
    expect((await drain(iterator)).items.map((d) => d.id)).toEqual(['late']);
  });

  it('a continuation token taken before a split resumes after it, on both children', async () => {
    await create(0, 30);
    const first = container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
    const { items, continuation } = await drain(first);
    expect(items).toHaveLength(30);
    await adminRequest(cosmos.emu, 'POST', 'split', { databaseId: dbId, containerId: container.id, rangeId: '3' }).then((r) =>
      expect(r.status).toBe(200),
    );
    const more = await create(30, 60);
    const resumed = await drain(
      container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(continuation) }),
    );
    expect(resumed.items.map((d) => d.id).sort()).toEqual(more.sort());
  });

  it('an iterator over one old feed range follows both children', async () => {
    await create(0, 46);
    const [range0] = await container.getFeedRanges();
    const it0 = container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range0) });
    const before = (await drain(it0)).items.map((d) => d.id);
    await cosmos.emu.splitRange(dbId, container.id, '0');
    const more = await create(46, 92);
    const ranges = (await adminRequest(cosmos.emu, 'GET', `ranges/${dbId}/${container.id}`)).json as {
      ranges: { id: string; documents: number }[];
    };
    const children = ranges.ranges.filter((r) => r.id === '4' || r.id === '5');
    expect(children.every((r) => r.documents > 0)).toBe(true); // both children hold documents of the old range
    const after = (await drain(it0)).items.map((d) => d.id);
    expect(new Set([...before, ...after]).size).toBe(before.length + after.length);
    expect(after.every((id) => more.includes(id))).toBe(true);
    // exactly what a fresh read of the old range's key space finds
    const fresh = (
      await drain(container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range0) }))
    ).items.map((d) => d.id);
    expect([...before, ...after].sort()).toEqual(fresh.sort());
  });

  it('refuses to split a range twice (409) and an unknown one (400/404)', async () => {
    await cosmos.emu.splitRange(dbId, container.id, '2');
    await expect(cosmos.emu.splitRange(dbId, container.id, '2')).rejects.toMatchObject({ status: 409 });
    await expect(cosmos.emu.splitRange(dbId, container.id, '99')).rejects.toMatchObject({ status: 400 });
    await expect(cosmos.emu.splitRange(dbId, 'nope', '0')).rejects.toMatchObject({ status: 404 });
  });
});

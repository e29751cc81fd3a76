import { BulkOperationType, ChangeFeedStartFrom, Container } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, hashV2Key, startTestCosmos } from '../../helpers/cosmos';
import { waitFor } from '../../helpers/wait-for';
import { effectivePartitionKey } from '@opstream/cosmos-emulator/hash';
import { drain } from './feed-util';
import { rawRequest } from './raw-client';

interface Doc {
  id: string;
  pk: string;
  v: number;
  _lsn: number;
}

describe('cosmos emulator: change feed (latest version) through @azure/cosmos', () => {
  let cosmos: TestCosmos;
  let container: Container;
  let dbId: string;
  const keys = Array.from({ length: 12 }, (_, i) => `key-${i}`);

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const db = await createTestDatabase(cosmos.client);
    dbId = db.id;
  });
  afterAll(() => cosmos.close());

  beforeEach(async () => {
    const db = cosmos.client.database(dbId);
    container = (
      await db.containers.create({ id: `cf-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`, partitionKey: hashV2Key('/pk') })
    ).container;
  });

  async function writeAll(count: number, v = 1): Promise<void> {
    for (let i = 0; i < count; i++) await container.items.upsert({ id: `d${i}`, pk: keys[i % keys.length], v });
  }

  it('from the beginning: every document once, the latest version, in _lsn order per range', async () => {
    await writeAll(30);
    await container.items.upsert({ id: 'd3', pk: keys[3], v: 2 });
    await container.items.upsert({ id: 'd3', pk: keys[3], v: 3 });
    await container.item('d4', keys[4]).delete();
    const { items, pages } = await drain(
      container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }),
    );
    const ids = items.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `d${i}`)
        .filter((id) => id !== 'd4')
        .sort(),
    );
    expect(items.find((d) => d.id === 'd3')!.v).toBe(3);
    for (const page of pages) {
      const lsns = page.map((d) => d._lsn);
      expect(lsns).toEqual([...lsns].sort((a, b) => a - b));
    }
  });

  it('from now: nothing written before, everything written after; 304 carries a continuation', async () => {
    await writeAll(5);
    const iterator = container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Now() });
    const first = await iterator.readNext();
    expect(first.statusCode).toBe(304);
    expect(first.continuationToken).toEqual(expect.any(String));
    await container.items.create({ id: 'after', pk: 'late', v: 1 });
    const { items } = await drain(iterator);
    expect(items.map((d) => d.id)).toEqual(['after']);
  });

  it('from a time: only writes at or after that time', async () => {
    await container.items.create({ id: 'old', pk: 'a', v: 1 });
    // If-Modified-Since has whole-second resolution: start at the next second boundary.
    const start = new Date(Math.ceil((Date.now() + 1) / 1000) * 1000);
    await waitFor(() => Date.now() >= start.getTime(), { timeoutMs: 3000, describe: () => 'the clock to reach the start time' });
    await container.items.create({ id: 'new', pk: 'b', v: 1 });
    await container.items.upsert({ id: 'old-touched', pk: 'c', v: 1 });
    const { items } = await drain(container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Time(start) }));
    expect(items.map((d) => d.id).sort()).toEqual(['new', 'old-touched']);
  });

  it('resumes from a continuation token without losing or repeating', async () => {
    await writeAll(20);
    const iterator = container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(), maxItemCount: 3 });
    const firstPages: Doc[] = [];
    let token = '';
    for (let i = 0; i < 3; i++) {
      const r = await iterator.readNext();
      if (r.statusCode === 200) firstPages.push(...r.result);
      token = r.continuationToken;
    }
    expect(firstPages.length).toBeGreaterThan(0);
    await writeAll(24, 2); // updates d0…d19 and adds d20…d23
    const resumed = await drain(
      container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token), maxItemCount: 3 }),
    );
    const afterIds = resumed.items.map((d) => d.id);
    expect(new Set(afterIds).size).toBe(afterIds.length);
    // every document's latest version (v: 2) arrives after the resume point
    expect(afterIds.sort()).toEqual(Array.from({ length: 24 }, (_, i) => `d${i}`).sort());
    expect(resumed.items.every((d) => d.v === 2)).toBe(true);
  });

  it('serves the legacy changeFeed(partitionKey) API too', async () => {
    await writeAll(24);
    const legacy = container.items.changeFeed<Doc>(keys[2], { startFromBeginning: true });
    const page = await legacy.fetchNext();
    expect(page.result!.map((d) => d.id).sort()).toEqual(['d14', 'd2']);
    expect(page.etag).toMatch(/^"\d+"$/);
  });

  it('honours maxItemCount', async () => {
    await writeAll(25);
    const { pages, items } = await drain(
      container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(), maxItemCount: 4 }),
    );
    expect(items).toHaveLength(25);
    expect(pages.every((p) => p.length <= 4)).toBe(true);
  });

  it('is scoped by partition key', async () => {
    await writeAll(36);
    const { items } = await drain(
      container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(keys[5]) }),
    );
    expect(items.map((d) => d.id).sort()).toEqual(['d17', 'd29', 'd5']);
    expect(items.every((d) => d.pk === keys[5])).toBe(true);
  });

  it('is scoped by feed range: each physical range yields exactly its documents', async () => {
    await writeAll(36);
    const ranges = await container.getFeedRanges();
    expect(ranges).toHaveLength(4);
    const seen: string[] = [];
    for (const range of ranges) {
      const { items } = await drain(
        container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range) }),
      );
      for (const d of items) {
        const epk = effectivePartitionKey([d.pk]);
        expect(epk >= range.minInclusive && (range.maxExclusive === 'FF' || epk < range.maxExclusive)).toBe(true);
      }
      seen.push(...items.map((d) => d.id));
    }
    expect(seen.sort()).toEqual(Array.from({ length: 36 }, (_, i) => `d${i}`).sort());
  });

  it('is scoped by a sub-range narrower than a physical range (x-ms-start-epk / x-ms-end-epk)', async () => {
    await writeAll(36);
    const { resource } = await container.read();
    const sub = { minInclusive: '04', maxExclusive: '0C' }; // inside the first range "" … "10"
    const token = JSON.stringify({ rid: resource!._rid, Continuation: [{ ...sub, continuationToken: '' }] });
    const { items } = await drain(
      container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token) }),
    );
    const expected = Array.from({ length: 36 }, (_, i) => ({ id: `d${i}`, epk: effectivePartitionKey([keys[i % keys.length]]) }))
      .filter((d) => d.epk >= sub.minInclusive && d.epk < sub.maxExclusive)
      .map((d) => d.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(items.map((d) => d.id).sort()).toEqual(expected.sort());
  });

  it('never splits the writes of one transactional batch across pages', async () => {
    await container.items.create({ id: 'first', pk: 'batchkey', v: 0 });
    const ops = Array.from({ length: 6 }, (_, i) => ({
      operationType: BulkOperationType.Create,
      resourceBody: { id: `batch-${i}`, pk: 'batchkey', v: 1 },
    }));
    const response = await container.items.batch(ops, 'batchkey');
    expect(response.code).toBe(200);
    await container.items.create({ id: 'last', pk: 'batchkey', v: 2 });
    const { pages } = await drain(
      container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning('batchkey'), maxItemCount: 2 }),
    );
    const batchPages = pages.filter((p) => p.some((d) => d.id.startsWith('batch-')));
    expect(batchPages).toHaveLength(1);
    expect(batchPages[0].filter((d) => d.id.startsWith('batch-'))).toHaveLength(6);
    expect(batchPages[0].length).toBeGreaterThan(2); // larger than maxItemCount: the batch stays whole
    const order = pages.flat().map((d) => d.id);
    expect(order[0]).toBe('first');
    expect(order[order.length - 1]).toBe('last');
    expect(order).toHaveLength(8);
  });

  it('answers 304 with the current LSN as etag and a session token (raw protocol)', async () => {
    await container.items.create({ id: 'x', pk: 'p', v: 1 });
    const { resource } = await container.read();
    const path = `/dbs/${dbId}/colls/${container.id}/docs`;
    const headers = { 'a-im': 'Incremental feed', 'x-ms-documentdb-partitionkey': '["p"]' };
    const first = await rawRequest(cosmos.emu, 'GET', path, { headers });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"\d+"$/);
    expect(first.headers.get('x-ms-session-token')).toMatch(/^\d+:-1#\d+$/);
    expect((first.json as { _rid: string; _count: number })._rid).toBe(resource!._rid);
    const second = await rawRequest(cosmos.emu, 'GET', path, { headers: { ...headers, 'if-none-match': etag } });
    expect(second.status).toBe(304);
    expect(second.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(second.headers.get('x-ms-session-token')).toMatch(/^\d+:-1#\d+$/);
    const now = await rawRequest(cosmos.emu, 'GET', path, { headers: { ...headers, 'if-none-match': '*' } });
    expect(now.status).toBe(304);
    expect(Number(JSON.parse(now.headers.get('etag')!))).toBeGreaterThanOrEqual(Number(JSON.parse(etag)));
    expect(cosmos.emu.counters().changeFeed304).toBeGreaterThanOrEqual(2);
  });
});

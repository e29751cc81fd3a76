import { ChangeFeedStartFrom, Container, Database } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';
import { waitFor } from '../../helpers/wait-for';
import { drain } from './feed-util';

interface Doc {
  id: string;
  pk: string;
  ttl?: number;
}

describe('cosmos emulator: TTL through @azure/cosmos', () => {
  let cosmos: TestCosmos;
  let db: Database;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    db = await createTestDatabase(cosmos.client);
  });
  afterAll(() => cosmos.close());

  const ids = async (c: Container): Promise<string[]> =>
    (await c.items.query<Doc>('SELECT * FROM c').fetchAll()).resources.map((d) => d.id).sort();
  const feedIds = async (c: Container): Promise<string[]> =>
    (await drain(c.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }))).items
      .map((d) => d.id)
      .sort();
  const gone = async (c: Container, id: string, pk: string): Promise<boolean> => (await c.item(id, pk).read()).statusCode === 404;

  it('container defaultTtl: items expire from reads, queries and the change feed; ttl -1 and a long ttl stay', async () => {
    const c = (await db.containers.create({ id: 'default-ttl', partitionKey: { paths: ['/pk'] }, defaultTtl: 1 })).container;
    await c.items.create({ id: 'short', pk: 'a' });
    await c.items.create({ id: 'forever', pk: 'b', ttl: -1 });
    await c.items.create({ id: 'long', pk: 'c', ttl: 3600 });
    await waitFor(() => gone(c, 'short', 'a'), { timeoutMs: 10_000, describe: () => 'the item with the default TTL of 1 s to expire' });
    expect(await ids(c)).toEqual(['forever', 'long']);
    expect(await feedIds(c)).toEqual(['forever', 'long']);
    expect((await c.item('forever', 'b').read()).statusCode).toBe(200);
    // an expired id can be created again
    expect((await c.items.create({ id: 'short', pk: 'a', ttl: 3600 })).statusCode).toBe(201);
  });

  it('defaultTtl -1: only items with their own ttl expire; without defaultTtl item ttls are ignored', async () => {
    const off = (await db.containers.create({ id: 'ttl-off', partitionKey: { paths: ['/pk'] } })).container;
    const on = (await db.containers.create({ id: 'ttl-on', partitionKey: { paths: ['/pk'] }, defaultTtl: -1 })).container;
    await off.items.create({ id: 'ignored', pk: 'x', ttl: 1 });
    await on.items.create({ id: 'kept', pk: 'x' });
    await on.items.create({ id: 'expiring', pk: 'y', ttl: 1 });
    await waitFor(() => gone(on, 'expiring', 'y'), { timeoutMs: 10_000, describe: () => 'the item with ttl 1 to expire' });
    expect(await ids(on)).toEqual(['kept']);
    expect(await feedIds(on)).toEqual(['kept']);
    // 'ignored' was written before 'expiring', so its 1 s is over too, yet it stays: TTL is off there
    expect((await off.item('ignored', 'x').read()).statusCode).toBe(200);
    expect(await ids(off)).toEqual(['ignored']);
  });

  it('turning TTL on for a container expires its old items; an update restarts the clock', async () => {
    const c = (await db.containers.create({ id: 'ttl-later', partitionKey: { paths: ['/pk'] } })).container;
    const t0 = Date.now();
    await c.items.create({ id: 'old', pk: 'p' });
    await c.items.create({ id: 'touched', pk: 'q', v: 1 });
    await c.replace({ id: 'ttl-later', partitionKey: { paths: ['/pk'] }, defaultTtl: 3 });
    await waitFor(() => Date.now() >= t0 + 1500, { describe: () => 'the clock to pass t0 + 1.5 s' });
    const touchedAt = Date.now();
    await c.items.upsert({ id: 'touched', pk: 'q', v: 2 }); // its 3 s start again now
    await waitFor(() => gone(c, 'old', 'p'), { timeoutMs: 10_000, describe: () => 'the old item to expire once defaultTtl is set' });
    const touched = await c.item('touched', 'q').read();
    // Only conclusive if the read finished before the touched item's own expiry (a stalled machine may be late).
    if (Date.now() < touchedAt + 3000) expect(touched.statusCode).toBe(200);
    await waitFor(() => gone(c, 'touched', 'q'), { timeoutMs: 10_000, describe: () => 'the touched item to expire 3 s after its update' });
    expect(Date.now()).toBeGreaterThanOrEqual(touchedAt + 3000 - 50);
  });

  it('refuses an invalid item ttl (400)', async () => {
    const c = (await db.containers.create({ id: 'ttl-bad', partitionKey: { paths: ['/pk'] }, defaultTtl: -1 })).container;
    await expect(c.items.create({ id: 'z', pk: 'p', ttl: 0 })).rejects.toMatchObject({ code: 400 });
    await expect(c.items.create({ id: 'z', pk: 'p', ttl: 'soon' } as unknown as Doc)).rejects.toMatchObject({ code: 400 });
  });
});

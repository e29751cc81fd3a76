import { ChangeFeedStartFrom, Container, PartitionKeyDefinitionVersion, PartitionKeyKind } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';
import { drain } from './feed-util';

interface Doc {
  id: string;
  tenant: string;
  user: string;
  n: number;
}

describe('cosmos emulator: hierarchical partition keys (MultiHash) through @azure/cosmos', () => {
  let cosmos: TestCosmos;
  let container: Container;
  const docs: Doc[] = [];
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const db = await createTestDatabase(cosmos.client);
    container = (
      await db.containers.createIfNotExists({
        id: 'hpk',
        partitionKey: { paths: ['/tenant', '/user'], kind: PartitionKeyKind.MultiHash, version: PartitionKeyDefinitionVersion.V2 },
      })
    ).container;
    for (let t = 0; t < 4; t++)
      for (let u = 0; u < 5; u++) {
        const doc = { id: `d-${t}-${u}`, tenant: `t${t}`, user: `u${u}`, n: t * 10 + u };
        docs.push(doc);
        await container.items.create(doc);
      }
  });
  afterAll(() => cosmos.close());

  it('echoes the definition as the service does (kind MultiHash, version 2, every path)', async () => {
    const { resource } = await container.read();
    expect(resource?.partitionKey).toEqual({ paths: ['/tenant', '/user'], kind: 'MultiHash', version: 2 });
  });

  it('reads and patches by the full key, and refuses a prefix for a point operation (400)', async () => {
    const read = await container.item('d-1-2', ['t1', 'u2']).read<Doc>();
    expect(read.resource).toMatchObject({ id: 'd-1-2', n: 12 });
    expect((await container.item('d-1-2', ['t1', 'u3']).read()).statusCode).toBe(404);
    const patched = await container.item('d-1-2', ['t1', 'u2']).patch<Doc>([{ op: 'incr', path: '/n', value: 100 }]);
    expect(patched.resource?.n).toBe(112);
    await expect(
      container.items.create({ id: 'x', tenant: 't1', user: 'u9', n: 0 }).then(() => container.item('x', ['t1']).read()),
    ).rejects.toMatchObject({
      code: 400,
    });
  });

  it('queries one logical partition, a prefix of the key, and across partitions', async () => {
    const full = await container.items.query<Doc>('SELECT * FROM c', { partitionKey: ['t2', 'u1'] }).fetchAll();
    expect(full.resources.map((d) => d.id)).toEqual(['d-2-1']);
    const prefix = await container.items.query<Doc>('SELECT VALUE c.id FROM c', { partitionKey: ['t3'] }).fetchAll();
    expect([...prefix.resources].sort()).toEqual(['d-3-0', 'd-3-1', 'd-3-2', 'd-3-3', 'd-3-4']);
    const count = await container.items.query<number>('SELECT VALUE COUNT(1) FROM c WHERE c.user = "u0"').fetchAll();
    expect(count.resources.reduce((a, b) => a + b, 0)).toBe(4);
  });

  it('reads the change feed of a prefix, of a full key, and of every feed range without losing or repeating a document', async () => {
    const prefix = await drain(container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(['t0']) }));
    expect(prefix.items.map((d) => d.id).sort()).toEqual(['d-0-0', 'd-0-1', 'd-0-2', 'd-0-3', 'd-0-4']);
    const one = await drain(
      container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(['t0', 'u3']) }),
    );
    expect(one.items.map((d) => d.id)).toEqual(['d-0-3']);
    const ranges = await container.getFeedRanges();
    expect(ranges.length).toBe(4);
    const seen: string[] = [];
    for (const range of ranges)
      seen.push(
        ...(
          await drain(container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range) }))
        ).items.map((d) => d.id),
      );
    expect(seen.filter((id) => id.startsWith('d-')).sort()).toEqual(docs.map((d) => d.id).sort());
  });

  it('continues a prefix change feed after a split of the range it lives on', async () => {
    const iterator = container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Now(['t1']) });
    await drain(iterator);
    const live = (await container.readPartitionKeyRanges().fetchAll()).resources;
    for (const r of live) await cosmos.emu.splitRange(container.database.id, container.id, r.id);
    await container.items.create({ id: 'after-split', tenant: 't1', user: 'u7', n: 0 });
    await container.items.create({ id: 'other-tenant', tenant: 't2', user: 'u7', n: 0 });
    const after = await drain(iterator);
    expect(after.items.map((d) => d.id)).toEqual(['after-split']);
  });

  it('refuses definitions the service refuses: several paths without MultiHash, more than three levels', async () => {
    const db = container.database;
    await expect(db.containers.create({ id: 'two-hash', partitionKey: { paths: ['/a', '/b'] } })).rejects.toMatchObject({ code: 400 });
    await expect(
      db.containers.create({
        id: 'four',
        partitionKey: { paths: ['/a', '/b', '/c', '/d'], kind: PartitionKeyKind.MultiHash, version: PartitionKeyDefinitionVersion.V2 },
      }),
    ).rejects.toMatchObject({ code: 400 });
  });
});

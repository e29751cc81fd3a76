import { Container, PatchOperation } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';
import { rawRequest } from './raw-client';

interface Doc {
  id: string;
  pk: string;
  n?: number;
  tags?: string[];
  nested?: { a?: number; b?: string };
  status?: string;
  _etag?: string;
  _ts?: number;
  _lsn?: number;
  _rid?: string;
}

/** The LSN of a write, from its session token `<range>:-1#<lsn>`. */
function lsnOf(headers: Record<string, unknown>): number {
  return Number(String(headers['x-ms-session-token']).split('#').pop());
}

describe('cosmos emulator: items through @azure/cosmos', () => {
  let cosmos: TestCosmos;
  let container: Container;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const db = await createTestDatabase(cosmos.client);
    container = (await db.containers.createIfNotExists({ id: 'items', partitionKey: { paths: ['/pk'] } })).container;
  });
  afterAll(() => cosmos.close());

  it('creates and reads a document with _etag, _ts and the etag header (no _lsn: only change-feed items carry it)', async () => {
    const before = Math.floor(Date.now() / 1000);
    const created = await container.items.create<Doc>({ id: 'c1', pk: 'p', n: 1 });
    expect(created.statusCode).toBe(201);
    const body = created.resource!;
    expect(body).toMatchObject({ id: 'c1', pk: 'p', n: 1, _etag: expect.stringMatching(/^".+"$/), _rid: expect.any(String) });
    expect(body).not.toHaveProperty('_lsn');
    expect(body._ts).toBeGreaterThanOrEqual(before);
    expect(created.etag).toBe(body._etag);
    const read = await container.item('c1', 'p').read<Doc>();
    expect(read.statusCode).toBe(200);
    expect(read.resource).toEqual(body);
    expect(read.etag).toBe(body._etag);
    expect(read.resource).not.toHaveProperty('_lsn');
  });

  it('answers a point read with If-None-Match: <current etag> with 304', async () => {
    const { resource } = await container.items.create<Doc>({ id: 'inm', pk: 'p' });
    const path = `/dbs/${container.database.id}/colls/${container.id}/docs/inm`;
    const headers = { 'x-ms-documentdb-partitionkey': '["p"]' };
    const same = await rawRequest(cosmos.emu, 'GET', path, { headers: { ...headers, 'if-none-match': resource!._etag! } });
    expect(same.status).toBe(304);
    expect(same.headers.get('etag')).toBe(resource!._etag);
    const other = await rawRequest(cosmos.emu, 'GET', path, { headers: { ...headers, 'if-none-match': '"stale"' } });
    expect(other.status).toBe(200);
  });

  it('answers 409 on a duplicate id in the same partition key, and allows it under another key', async () => {
    await container.items.create({ id: 'dup', pk: 'a' });
    await expect(container.items.create({ id: 'dup', pk: 'a' })).rejects.toMatchObject({ code: 409 });
    const other = await container.items.create({ id: 'dup', pk: 'b' });
    expect(other.statusCode).toBe(201);
  });

  it('answers 404 for a missing document (read resolves with 404, replace/delete reject)', async () => {
    const read = await container.item('nope', 'p').read();
    expect(read.statusCode).toBe(404);
    expect(read.resource).toBeUndefined();
    await expect(container.item('nope', 'p').replace({ id: 'nope', pk: 'p' })).rejects.toMatchObject({ code: 404 });
    await expect(container.item('nope', 'p').delete()).rejects.toMatchObject({ code: 404 });
    // same id, different partition key: not found either
    await container.items.create({ id: 'keyed', pk: 'k1' });
    expect((await container.item('keyed', 'k2').read()).statusCode).toBe(404);
  });

  it('replaces and upserts with new etags and growing LSNs; upsert answers 201 then 200', async () => {
    const first = await container.items.upsert<Doc>({ id: 'u1', pk: 'p', n: 1 });
    expect(first.statusCode).toBe(201);
    const second = await container.items.upsert<Doc>({ id: 'u1', pk: 'p', n: 2 });
    expect(second.statusCode).toBe(200);
    expect(second.resource!._etag).not.toBe(first.resource!._etag);
    expect(lsnOf(second.headers)).toBeGreaterThan(lsnOf(first.headers));
    expect(second.resource!._rid).toBe(first.resource!._rid);
    const replaced = await container.item('u1', 'p').replace<Doc>({ id: 'u1', pk: 'p', n: 3 });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.resource!.n).toBe(3);
    expect(lsnOf(replaced.headers)).toBeGreaterThan(lsnOf(second.headers));
  });

  it('honours If-Match: 412 on a stale etag for replace, upsert, delete and patch', async () => {
    const { resource } = await container.items.create<Doc>({ id: 'im', pk: 'p', n: 1 });
    const stale = resource!._etag!;
    const fresh = (
      await container.item('im', 'p').replace<Doc>({ id: 'im', pk: 'p', n: 2 }, { accessCondition: { type: 'IfMatch', condition: stale } })
    ).resource!;
    const ifStale = { accessCondition: { type: 'IfMatch', condition: stale } };
    await expect(container.item('im', 'p').replace({ id: 'im', pk: 'p', n: 3 }, ifStale)).rejects.toMatchObject({ code: 412 });
    await expect(container.items.upsert({ id: 'im', pk: 'p', n: 3 }, ifStale)).rejects.toMatchObject({ code: 412 });
    await expect(container.item('im', 'p').patch([{ op: 'set', path: '/n', value: 9 }], ifStale)).rejects.toMatchObject({ code: 412 });
    await expect(container.item('im', 'p').delete(ifStale)).rejects.toMatchObject({ code: 412 });
    // as in Cosmos, an upsert with If-Match creates a document that does not exist
    expect((await container.items.upsert({ id: 'im-new', pk: 'p' }, ifStale)).statusCode).toBe(201);
    const deleted = await container.item('im', 'p').delete({ accessCondition: { type: 'IfMatch', condition: fresh._etag! } });
    expect(deleted.statusCode).toBe(204);
    expect((await container.item('im', 'p').read()).statusCode).toBe(404);
  });

  it('deletes, and a deleted id can be created again', async () => {
    await container.items.create({ id: 'del', pk: 'p' });
    expect((await container.item('del', 'p').delete()).statusCode).toBe(204);
    expect((await container.item('del', 'p').read()).statusCode).toBe(404);
    expect((await container.items.create({ id: 'del', pk: 'p' })).statusCode).toBe(201);
  });

  it('patches with add, set, replace, remove, incr and move', async () => {
    await container.items.create<Doc>({ id: 'pt', pk: 'p', n: 1, tags: ['a', 'c'], nested: { a: 1 }, status: 'Accepted' });
    const ops: PatchOperation[] = [
      { op: 'incr', path: '/n', value: 5 },
      { op: 'add', path: '/tags/1', value: 'b' },
      { op: 'set', path: '/nested/b', value: 'x' },
      { op: 'replace', path: '/status', value: 'Provisioning' },
      { op: 'remove', path: '/nested/a' },
      // `move` is a Cosmos patch op the SDK's type does not list yet
      { op: 'move', from: '/status', path: '/state' } as unknown as PatchOperation,
    ];
    const { resource, statusCode } = await container.item('pt', 'p').patch<Doc & { state?: string }>(ops);
    expect(statusCode).toBe(200);
    expect(resource).toMatchObject({ id: 'pt', pk: 'p', n: 6, tags: ['a', 'b', 'c'], nested: { b: 'x' }, state: 'Provisioning' });
    expect(resource!.status).toBeUndefined();
    const read = (await container.item('pt', 'p').read()).resource;
    expect(read).toEqual(resource);
  });

  it('applies a conditional patch only when the condition holds (412 otherwise)', async () => {
    await container.items.create<Doc>({ id: 'cond', pk: 'p', status: 'Accepted' });
    await expect(
      container
        .item('cond', 'p')
        .patch({ condition: "FROM c WHERE c.status = 'Succeeded'", operations: [{ op: 'set', path: '/status', value: 'Failed' }] }),
    ).rejects.toMatchObject({ code: 412 });
    const ok = await container.item('cond', 'p').patch<Doc>({
      condition: "FROM c WHERE c.status = 'Accepted'",
      operations: [{ op: 'set', path: '/status', value: 'Provisioning' }],
    });
    expect(ok.resource!.status).toBe('Provisioning');
  });

  it('refuses patches of the id or partition key, replace of a missing path, and incr of a string (400)', async () => {
    await container.items.create<Doc>({ id: 'pbad', pk: 'p', status: 'x' });
    await expect(container.item('pbad', 'p').patch([{ op: 'set', path: '/pk', value: 'q' }])).rejects.toMatchObject({ code: 400 });
    await expect(container.item('pbad', 'p').patch([{ op: 'set', path: '/id', value: 'q' }])).rejects.toMatchObject({ code: 400 });
    await expect(container.item('pbad', 'p').patch([{ op: 'replace', path: '/missing', value: 1 }])).rejects.toMatchObject({ code: 400 });
    await expect(container.item('pbad', 'p').patch([{ op: 'incr', path: '/status', value: 1 }])).rejects.toMatchObject({ code: 400 });
  });

  it('refuses a body whose partition key differs from the header (400)', async () => {
    await container.items.create({ id: 'mm2', pk: 'p' });
    await expect(container.item('mm2', 'p').replace({ id: 'mm2', pk: 'other' })).rejects.toMatchObject({ code: 400 });
  });

  it('stores documents without the partition key property under the None key', async () => {
    const { resource } = await container.items.create({ id: 'nokey', other: 1 });
    expect(resource!.id).toBe('nokey');
    const { resources } = await container.items.query('SELECT * FROM c WHERE c.id = "nokey"').fetchAll();
    expect(resources).toHaveLength(1);
  });

  it('supports partition key values of every type: number, boolean, null', async () => {
    const db = await createTestDatabase(cosmos.client);
    const c = (await db.containers.create({ id: 'typed', partitionKey: { paths: ['/k'] } })).container;
    for (const k of [42, 1.5, true, false, null]) {
      await c.items.create({ id: `id-${String(k)}`, k });
      const { resource } = await c.item(`id-${String(k)}`, k).read<{ k: unknown }>();
      expect(resource!.k).toBe(k);
    }
  });
});

import { CosmosClient, PermissionMode } from '@azure/cosmos';
import { CosmosEmulator } from '@opstream/cosmos-emulator';
import { TestCosmos, createTestDatabase, emulatorClientOptions, startTestCosmos } from '../../helpers/cosmos';

/** Users, permissions and resource tokens, through the SDK's own calls and its `resourceTokens` / `permissionFeed` clients. */
describe('cosmos emulator: users, permissions and resource tokens', () => {
  let cosmos: TestCosmos;
  const clients: CosmosClient[] = [];
  beforeAll(async () => {
    cosmos = await startTestCosmos();
  });
  afterAll(async () => {
    for (const c of clients) c.dispose();
    await cosmos.close();
  });

  /** A client that authenticates with resource tokens (or a permission feed) instead of the key. */
  function tokenClient(emu: CosmosEmulator, auth: { resourceTokens: Record<string, string> } | { permissionFeed: never[] }): CosmosClient {
    const { key: _key, ...options } = emulatorClientOptions(emu);
    const client = new CosmosClient({ ...options, ...auth });
    clients.push(client);
    return client;
  }

  it('creates, upserts, lists, queries, renames and deletes users and permissions', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container } = await db.containers.create({ id: 'c', partitionKey: { paths: ['/pk'] } });
    const { resource: created, statusCode } = await db.users.create({ id: 'alice' });
    expect(statusCode).toBe(201);
    expect(created).toMatchObject({ id: 'alice', _permissions: 'permissions/' });
    await expect(db.users.create({ id: 'alice' })).rejects.toMatchObject({ code: 409 });
    expect((await db.users.upsert({ id: 'alice' })).statusCode).toBe(200);
    const { resources: found } = await db.users
      .query({ query: 'SELECT * FROM r WHERE r.id = @id', parameters: [{ name: '@id', value: 'alice' }] })
      .fetchAll();
    expect(found.map((u) => u.id)).toEqual(['alice']);

    const user = db.user('alice');
    const { resource: perm } = await user.permissions.create({
      id: 'read-c',
      permissionMode: PermissionMode.Read,
      resource: container.url,
      resourcePartitionKey: [1],
    });
    expect(perm).toMatchObject({ id: 'read-c', permissionMode: 'read', resource: container.url, resourcePartitionKey: [1] });
    expect(perm?._token).toMatch(/^type=resource&ver=1\.0&sig=/);
    const { resource: replaced } = await user
      .permission('read-c')
      .replace({ id: 'all-c', permissionMode: PermissionMode.All, resource: container.url });
    expect(replaced).toMatchObject({ id: 'all-c', permissionMode: 'all' });
    expect((await user.permissions.readAll().fetchAll()).resources.map((p) => p.id)).toEqual(['all-c']);
    await expect(user.permission('read-c').read()).rejects.toMatchObject({ code: 404 });
    await expect(
      user.permissions.create({ id: 'elsewhere', permissionMode: PermissionMode.Read, resource: 'dbs/other/colls/x' }),
    ).rejects.toMatchObject({ code: 400 });

    const { resource: renamed } = await user.replace({ id: 'alicia' });
    expect(renamed?.id).toBe('alicia');
    expect((await db.user('alicia').permissions.readAll().fetchAll()).resources.map((p) => p.id)).toEqual(['all-c']);
    await expect(user.read()).rejects.toMatchObject({ code: 404 });
    await db.user('alicia').delete();
    expect((await db.users.readAll().fetchAll()).resources).toEqual([]);
  });

  it('lets a resource token read what a Read permission covers (container, items, queries) and nothing more', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container } = await db.containers.create({ id: 'docs', partitionKey: { paths: ['/pk'] } });
    await container.items.create({ id: 'd1', pk: 'a' });
    await db.containers.create({ id: 'other', partitionKey: { paths: ['/pk'] } });
    const { resource: perm } = await db.users
      .create({ id: 'reader' })
      .then(() => db.user('reader').permissions.create({ id: 'read', permissionMode: PermissionMode.Read, resource: container.url }));
    const reader = tokenClient(cosmos.emu, { resourceTokens: { [container.id]: String(perm?._token) } });
    const mine = reader.database(db.id).container(container.id);
    expect((await mine.read()).resource?.id).toBe('docs');
    expect((await mine.item('d1', 'a').read()).resource?.id).toBe('d1');
    expect((await mine.items.query('SELECT * FROM c').fetchAll()).resources.map((d) => d.id)).toEqual(['d1']);
    await expect(mine.items.create({ id: 'd2', pk: 'a' })).rejects.toMatchObject({ code: 403 });
    await expect(mine.item('d1', 'a').delete()).rejects.toMatchObject({ code: 403 });
    // For another container the SDK finds no token to send at all: unauthenticated, 401.
    await expect(reader.database(db.id).container('other').item('x', 'a').read()).rejects.toMatchObject({ code: 401 });

    // The same permission through a permission feed (the SDK keys it by the resource's id).
    const viaFeed = tokenClient(cosmos.emu, { permissionFeed: [perm as never] });
    expect(
      (
        await viaFeed
          .database(db.id)
          .container(container.id)
          .item('d1', undefined as never)
          .read()
      ).statusCode,
    ).toBe(404);
    expect((await viaFeed.database(db.id).container(container.id).item('d1', 'a').read()).resource?.id).toBe('d1');
  });

  it('lets an All permission write, limits a partition-key permission to its logical partition, and stops a token once its permission is gone or signed elsewhere', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container } = await db.containers.create({ id: 'docs', partitionKey: { paths: ['/pk'] } });
    await container.items.create({ id: 'b1', pk: 'b' });
    const user = (await db.users.create({ id: 'writer' })).user;
    const { resource: all } = await user.permissions.create({ id: 'all', permissionMode: PermissionMode.All, resource: container.url });
    const { resource: onlyA } = await user.permissions.create({
      id: 'only-a',
      permissionMode: PermissionMode.All,
      resource: container.url,
      resourcePartitionKey: ['a'],
    });

    const writer = tokenClient(cosmos.emu, { resourceTokens: { [container.id]: String(all?._token) } })
      .database(db.id)
      .container(container.id);
    expect((await writer.items.create({ id: 'a1', pk: 'a' })).statusCode).toBe(201);
    expect((await writer.item('b1', 'b').read()).resource?.id).toBe('b1');

    const partitionA = tokenClient(cosmos.emu, { resourceTokens: { [container.id]: String(onlyA?._token) } })
      .database(db.id)
      .container(container.id);
    expect((await partitionA.items.upsert({ id: 'a2', pk: 'a' })).statusCode).toBe(201);
    await expect(partitionA.item('b1', 'b').read()).rejects.toMatchObject({ code: 403 });

    await user.permission('all').delete();
    await expect(writer.item('b1', 'b').read()).rejects.toMatchObject({ code: 403 });

    const forged = String(onlyA?._token).replace(/sig=[^;]+/, 'sig=bm90IG91cnM=');
    const stranger = tokenClient(cosmos.emu, { resourceTokens: { [container.id]: forged } })
      .database(db.id)
      .container(container.id);
    await expect(stranger.item('a1', 'a').read()).rejects.toMatchObject({ code: 401 });
  });

  it('takes `_self` (rid-based) resource links: an item permission covers that item only, a container permission refuses deleting the container', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container, resource: def } = await db.containers.create({ id: 'docs', partitionKey: { paths: ['/pk'] } });
    const { resource: one } = await container.items.create({ id: 'one', pk: 'a' });
    await container.items.create({ id: 'two', pk: 'a' });
    const { user } = await db.users.create({ id: 'u' });
    const { resource: onItem } = await user.permissions.create({
      id: 'item',
      permissionMode: PermissionMode.All,
      resource: String(one?._self),
    });
    const { resource: onContainer } = await user.permissions.create({
      id: 'coll',
      permissionMode: PermissionMode.Read,
      resource: String(def?._self),
    });

    const itemClient = tokenClient(cosmos.emu, { resourceTokens: { one: String(onItem?._token), [container.id]: String(onItem?._token) } });
    const viaItem = itemClient.database(db.id).container(container.id);
    expect((await viaItem.item('one', 'a').read()).resource?.id).toBe('one');
    await expect(viaItem.item('two', 'a').read()).rejects.toMatchObject({ code: 403 });

    const viaContainer = tokenClient(cosmos.emu, { resourceTokens: { [container.id]: String(onContainer?._token) } })
      .database(db.id)
      .container(container.id);
    expect((await viaContainer.items.readAll().fetchAll()).resources.map((d) => d.id).sort()).toEqual(['one', 'two']);
    await expect(viaContainer.delete()).rejects.toMatchObject({ code: 403 });
  });
});

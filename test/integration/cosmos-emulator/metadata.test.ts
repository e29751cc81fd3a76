import { CosmosClient } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, emulatorClient, hashV2Key, startTestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';

describe('cosmos emulator: account, databases, containers through @azure/cosmos', () => {
  let cosmos: TestCosmos;
  let client: CosmosClient;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    client = cosmos.client;
  });
  afterAll(() => cosmos.close());

  it('serves account metadata with a real id and the endpoint as its only location', async () => {
    const { resource } = await client.getDatabaseAccount();
    expect(resource).toBeDefined();
    expect(resource!.writableLocations).toEqual([{ name: 'Emulator', databaseAccountEndpoint: cosmos.emu.endpoint }]);
    expect(resource!.readableLocations).toHaveLength(1);
    expect(resource!.consistencyPolicy).toBe('Session');
    expect(resource!.enableMultipleWritableLocations).toBe(false);
  });

  it('works with endpoint discovery on (SDK defaults) because the account id is not "localhost"', async () => {
    const discovering = emulatorClient(cosmos.emu, {
      connectionPolicy: { enableEndpointDiscovery: true, enableBackgroundEndpointRefreshing: false },
    });
    try {
      const { database } = await discovering.databases.createIfNotExists({ id: uniqueName('disc') });
      const { resource } = await database.read();
      expect(resource!.id).toBe(database.id);
    } finally {
      discovering.dispose();
    }
  });

  it('creates, reads, lists and deletes databases with 404/409 where Cosmos answers them', async () => {
    const id = uniqueName('db');
    const created = await client.databases.create({ id });
    expect(created.statusCode).toBe(201);
    expect(created.resource).toMatchObject({
      id,
      _rid: expect.any(String),
      _self: expect.any(String),
      _etag: expect.any(String),
      _ts: expect.any(Number),
    });
    await expect(client.databases.create({ id })).rejects.toMatchObject({ code: 409 });
    const again = await client.databases.createIfNotExists({ id });
    expect(again.statusCode).toBe(200);
    expect(again.resource!._rid).toBe(created.resource!._rid);
    const { resources } = await client.databases.readAll().fetchAll();
    expect(resources.map((d) => d.id)).toContain(id);
    const queried = await client.databases
      .query({ query: 'SELECT * FROM root r WHERE r.id = @id', parameters: [{ name: '@id', value: id }] })
      .fetchAll();
    expect(queried.resources.map((d) => d.id)).toEqual([id]);
    await client.database(id).delete();
    await expect(client.database(id).read()).rejects.toMatchObject({ code: 404 });
  });

  it('echoes the partition key as the service does (no version given: hash v1, read back without a version), with a stable _rid, and keeps defaultTtl', async () => {
    const db = await createTestDatabase(client);
    const { container, resource } = await db.containers.createIfNotExists({
      id: 'ops',
      partitionKey: { paths: ['/partitionKey'] },
      defaultTtl: 3600,
    });
    expect(resource!.partitionKey).toEqual({ paths: ['/partitionKey'], kind: 'Hash' });
    const v2 = (await db.containers.create({ id: 'v2', partitionKey: hashV2Key('/pk') })).resource!;
    expect(v2.partitionKey).toEqual({ paths: ['/pk'], kind: 'Hash', version: 2 });
    const v1 = (await db.containers.create({ id: 'v1', partitionKey: { paths: ['/pk'], version: 1 } })).resource!;
    expect(v1.partitionKey).toEqual({ paths: ['/pk'], kind: 'Hash', version: 1 });
    // the hash version is part of the key: a replace may leave it out, not change it
    await expect(db.container('v2').replace({ id: 'v2', partitionKey: { paths: ['/pk'], version: 1 } })).rejects.toMatchObject({
      code: 400,
    });
    expect(
      (await db.container('v2').replace({ id: 'v2', partitionKey: { paths: ['/pk'] }, defaultTtl: 5 })).resource!.partitionKey?.version,
    ).toBe(2);
    await Promise.all([db.container('v1').delete(), db.container('v2').delete()]);
    expect(resource!.defaultTtl).toBe(3600);
    const first = (await container.read()).resource!;
    const second = (await container.read()).resource!;
    expect(second._rid).toBe(first._rid);
    expect(Buffer.from(first._rid.replace(/-/g, '/'), 'base64')).toHaveLength(8);
    const ifNotExists = await db.containers.createIfNotExists({ id: 'ops', partitionKey: { paths: ['/partitionKey'] } });
    expect(ifNotExists.resource!._rid).toBe(first._rid);
    await expect(db.containers.create({ id: 'ops', partitionKey: { paths: ['/partitionKey'] } })).rejects.toMatchObject({ code: 409 });

    const replaced = await container.replace({ id: 'ops', partitionKey: { paths: ['/partitionKey'] }, defaultTtl: -1 });
    expect(replaced.resource!.defaultTtl).toBe(-1);
    expect(replaced.resource!._rid).toBe(first._rid);
    await expect(container.replace({ id: 'ops', partitionKey: { paths: ['/other'] } })).rejects.toMatchObject({ code: 400 });

    const noTtl = (await db.containers.create({ id: 'plain', partitionKey: { paths: ['/id'] } })).resource!;
    expect(noTtl.defaultTtl).toBeUndefined();
    const { resources } = await db.containers.readAll().fetchAll();
    expect(resources.map((c) => c.id).sort()).toEqual(['ops', 'plain']);
    await db.container('plain').delete();
    await expect(db.container('plain').read()).rejects.toMatchObject({ code: 404 });
  });

  it('lists partition key ranges; a container made without throughput has the default offer (400 RU/s)', async () => {
    const db = await createTestDatabase(client);
    const { container } = await db.containers.create({ id: 'ranges', partitionKey: hashV2Key('/pk') });
    const { resources } = await container.readPartitionKeyRanges().fetchAll();
    expect(resources.map((r) => [r.id, r.minInclusive, r.maxExclusive])).toEqual([
      ['0', '', '10'],
      ['1', '10', '20'],
      ['2', '20', '30'],
      ['3', '30', 'FF'],
    ]);
    expect((await container.readOffer()).resource?.content?.offerThroughput).toBe(400);
  });

  it('refuses invalid container definitions with 400', async () => {
    const db = await createTestDatabase(client);
    await expect(db.containers.create({ id: 'bad', partitionKey: { paths: ['/pk'] }, defaultTtl: 0 })).rejects.toMatchObject({ code: 400 });
    // several paths need kind MultiHash (hierarchical keys: hierarchical-keys.test.ts)
    await expect(db.containers.create({ id: 'bad', partitionKey: { paths: ['/a', '/b'], version: 2 } })).rejects.toMatchObject({
      code: 400,
    });
  });
});

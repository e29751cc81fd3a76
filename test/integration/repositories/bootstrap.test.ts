import { CONTAINERS, ContainerSetupError, ensureContainers } from '../../../src/cosmos';
import { hashV2Key, startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';

describe('container bootstrap', () => {
  let cosmos: TestCosmos;
  beforeAll(async () => {
    cosmos = await startTestCosmos({ partitions: 2 });
  });
  afterAll(() => cosmos.close());

  it('without create, a missing database fails with the fix in the message', async () => {
    const err = await ensureContainers(cosmos.client, uniqueName('nodb'), { create: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContainerSetupError);
    expect((err as Error).message).toMatch(
      /database "nodb-.*" does not exist; the template deploy\/azure\/main.bicep creates the database and every container \(deploy\/azure\/containers.json lists them\), or for key-authenticated development start opstream run with --cosmos-create-containers \(or OPSTREAM_COSMOS_CREATE_CONTAINERS=true\) to create what is missing$/,
    );
  });

  it('with create, makes every container with its partition key and TTL; then verification passes', async () => {
    const databaseId = uniqueName('boot');
    const containers = await ensureContainers(cosmos.client, databaseId, { create: true });
    for (const [name, spec] of Object.entries(CONTAINERS)) {
      const { resource } = await containers[name as keyof typeof CONTAINERS].read();
      expect([name, resource?.partitionKey?.paths, resource?.defaultTtl ?? undefined]).toEqual([
        name,
        [spec.partitionKeyPath],
        spec.defaultTtl,
      ]);
    }
    expect(CONTAINERS.operations.defaultTtl).toBe(604800);
    expect(CONTAINERS.locks.defaultTtl).toBe(10);
    expect(CONTAINERS.leases.defaultTtl).toBe(-1);
    await expect(ensureContainers(cosmos.client, databaseId, { create: false })).resolves.toHaveProperty('operations');
    await expect(ensureContainers(cosmos.client, databaseId, { create: true })).resolves.toHaveProperty('locks');
  });

  it('without create, every missing or wrong container is named with the command or template that makes it, with reads only', async () => {
    const databaseId = uniqueName('partial');
    const { database } = await cosmos.client.databases.createIfNotExists({ id: databaseId });
    await database.containers.create({ id: 'Operations', partitionKey: hashV2Key('/partitionKey'), defaultTtl: 604800 });
    // Locks and Leases: opstream computes no EPKs for them, so a container made without a version (v1) is fine.
    await database.containers.create({ id: 'Locks', partitionKey: { paths: ['/id'] } });
    await database.containers.create({ id: 'Leases', partitionKey: { paths: ['/partitionKey'] }, defaultTtl: -1 });
    cosmos.emu.resetCounters();
    const err = await ensureContainers(cosmos.client, databaseId, { create: false }).catch((e: unknown) => e);
    const { write, batch } = cosmos.emu.counters();
    expect(write + batch).toBe(0);
    expect((err as Error).message).toBe(
      `Cosmos containers of database "${databaseId}" are missing or wrong: ` +
        `container ${databaseId}/Resources does not exist (partition key /partitionKey (hash version 2), TTL off: az cosmosdb sql container create -g <resource group> -a <account> -d ${databaseId} -n Resources -p /partitionKey --partition-key-version 2); ` +
        `container ${databaseId}/Subscriptions does not exist (partition key /id (hash version 2), TTL off: az cosmosdb sql container create -g <resource group> -a <account> -d ${databaseId} -n Subscriptions -p /id --partition-key-version 2); ` +
        `container ${databaseId}/Locks has TTL off, but its documents must expire; set its default TTL (partition key /id (hash version 2), default TTL 10 s); ` +
        `container ${databaseId}/DeadLetters does not exist (partition key /partitionKey (hash version 2), TTL on with no default (-1): az cosmosdb sql container create -g <resource group> -a <account> -d ${databaseId} -n DeadLetters -p /partitionKey --partition-key-version 2 --ttl -1). ` +
        'The template deploy/azure/main.bicep creates the database and every container (deploy/azure/containers.json lists them), or for key-authenticated development start opstream run with --cosmos-create-containers (or OPSTREAM_COSMOS_CREATE_CONTAINERS=true) to create what is missing',
    );
  });

  it('an existing container with the wrong partition key is fatal even with create', async () => {
    const databaseId = uniqueName('wrongpk');
    const { database } = await cosmos.client.databases.createIfNotExists({ id: databaseId });
    await database.containers.create({ id: 'Locks', partitionKey: { paths: ['/partitionKey'] }, defaultTtl: 10 });
    const err = await ensureContainers(cosmos.client, databaseId, { create: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContainerSetupError);
    expect((err as Error).message).toContain(`container ${databaseId}/Locks has partition key ["/partitionKey"], expected /id`);
  });

  it('an Operations container hashed with version 1 is fatal even with create; new containers are made with version 2', async () => {
    const databaseId = uniqueName('hashv1');
    const { database } = await cosmos.client.databases.createIfNotExists({ id: databaseId });
    await database.containers.create({ id: 'Operations', partitionKey: { paths: ['/partitionKey'], version: 1 }, defaultTtl: 604800 });
    const err = await ensureContainers(cosmos.client, databaseId, { create: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContainerSetupError);
    expect((err as Error).message).toContain(`container ${databaseId}/Operations uses partition key hash version 1;`);
    const { resource } = await database.container('Resources').read();
    expect(resource?.partitionKey?.version).toBe(2);
  });

  it('an Operations container created without a version is version 1, as Cosmos makes it, and the message says so', async () => {
    const databaseId = uniqueName('noversion');
    const { database } = await cosmos.client.databases.createIfNotExists({ id: databaseId });
    await database.containers.create({ id: 'Operations', partitionKey: { paths: ['/partitionKey'] }, defaultTtl: 604800 });
    const err = await ensureContainers(cosmos.client, databaseId, { create: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContainerSetupError);
    expect((err as Error).message).toContain(
      `container ${databaseId}/Operations uses partition key hash version 1 (none given, which Cosmos reads as 1); opstream finds a feed range's operations by their version 2 hashes, and the version cannot be changed: recreate the container with partition key /partitionKey (hash version 2)`,
    );
  });
});

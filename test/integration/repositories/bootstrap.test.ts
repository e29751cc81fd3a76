import { CONTAINERS, ContainerSetupError, ensureContainers } from '../../../src/cosmos';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
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
      /database "nodb-.*" does not exist; create it \(and its containers\), or start opstream run with --cosmos-create-containers \(or OPSTREAM_COSMOS_CREATE_CONTAINERS=true\) to create what is missing$/,
    );
  });

  it('with create, makes every container with its partition key and TTL; then verification passes', async () => {
    const databaseId = uniqueName('boot');
    const containers = await ensureContainers(cosmos.client, databaseId, { create: true });
    for (const [name, spec] of Object.entries(CONTAINERS)) {
      const { resource } = await containers[name as keyof typeof CONTAINERS].read();
      expect([name, resource?.partitionKey?.paths, resource?.defaultTtl ?? undefined]).toEqual([name, [spec.partitionKeyPath], spec.defaultTtl]);
    }
    expect(CONTAINERS.operations.defaultTtl).toBe(604800);
    expect(CONTAINERS.locks.defaultTtl).toBe(10);
    expect(CONTAINERS.leases.defaultTtl).toBe(-1);
    await expect(ensureContainers(cosmos.client, databaseId, { create: false })).resolves.toHaveProperty('operations');
    await expect(ensureContainers(cosmos.client, databaseId, { create: true })).resolves.toHaveProperty('locks');
  });

  it('without create, a missing container is named with how to create it', async () => {
    const databaseId = uniqueName('partial');
    const { database } = await cosmos.client.databases.createIfNotExists({ id: databaseId });
    await database.containers.create({ id: 'Operations', partitionKey: { paths: ['/partitionKey'] }, defaultTtl: 604800 });
    const err = await ensureContainers(cosmos.client, databaseId, { create: false }).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      `Cosmos container ${databaseId}/Resources does not exist; create it with partition key /partitionKey, TTL off, or start opstream run with --cosmos-create-containers (or OPSTREAM_COSMOS_CREATE_CONTAINERS=true) to create what is missing`,
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
});

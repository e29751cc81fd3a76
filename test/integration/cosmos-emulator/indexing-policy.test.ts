import { DataType, IndexKind, IndexingMode } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';

describe('cosmos emulator: indexing policies as the service returns them', () => {
  let cosmos: TestCosmos;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
  });
  afterAll(() => cosmos.close());

  it('normalises a policy (mode lower-cased, automatic filled in, _etag excluded, legacy indexes dropped) and reports the transformation done', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container } = await db.containers.create({
      id: 'policy',
      partitionKey: { paths: ['/pk'] },
      indexingPolicy: {
        indexingMode: 'Consistent' as IndexingMode,
        includedPaths: [{ path: '/status/?', indexes: [{ kind: 'Range', dataType: 'String', precision: -1 }] } as never],
        excludedPaths: [{ path: '/*' }],
      },
    });
    const read = await container.read();
    expect(read.resource?.indexingPolicy).toEqual({
      indexingMode: 'consistent',
      automatic: true,
      includedPaths: [{ path: '/status/?' }],
      excludedPaths: [{ path: '/*' }, { path: '/"_etag"/?' }],
    });
    expect(read.headers['x-ms-documentdb-collection-index-transformation-progress']).toBe('100');

    const { resource } = await container.replace({
      id: 'policy',
      partitionKey: { paths: ['/pk'] },
      indexingPolicy: { indexingMode: IndexingMode.none, automatic: false },
    });
    expect(resource?.indexingPolicy).toEqual({ indexingMode: 'none', automatic: false, includedPaths: [], excludedPaths: [] });
  });

  it('fills in the default policy and refuses an unknown mode or a path without /? or /*', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { resource } = await db.containers.create({ id: 'plain', partitionKey: { paths: ['/pk'] } });
    expect(resource?.indexingPolicy).toEqual({
      indexingMode: 'consistent',
      automatic: true,
      includedPaths: [{ path: '/*' }],
      excludedPaths: [{ path: '/"_etag"/?' }],
    });
    await expect(
      db.containers.create({
        id: 'bad-mode',
        partitionKey: { paths: ['/pk'] },
        indexingPolicy: { indexingMode: 'eventual' as IndexingMode },
      }),
    ).rejects.toMatchObject({ code: 400 });
    await expect(
      db.containers.create({ id: 'bad-path', partitionKey: { paths: ['/pk'] }, indexingPolicy: { includedPaths: [{ path: '/status' }] } }),
    ).rejects.toMatchObject({ code: 400 });
  });

  it("accepts the legacy root path `/` with range indexes (as the SDK's own cross-partition specs create) and reads it back as `/*`", async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container, resource } = await db.containers.create({
      id: 'legacy-root',
      partitionKey: { paths: ['/key'] },
      indexingPolicy: {
        includedPaths: [
          {
            path: '/',
            indexes: [
              { kind: IndexKind.Range, dataType: DataType.Number },
              { kind: IndexKind.Range, dataType: DataType.String },
            ],
          },
        ],
      },
    });
    expect(resource?.indexingPolicy).toEqual({
      indexingMode: 'consistent',
      automatic: true,
      includedPaths: [{ path: '/*' }],
      excludedPaths: [{ path: '/"_etag"/?' }],
    });
    await Promise.all([1, 2, 3].map((n) => container.items.create({ id: `d${n}`, key: `k${n}`, n })));
    const { resources } = await container.items.query<number>('SELECT VALUE SUM(c.n) FROM c').fetchAll();
    expect(resources).toEqual([6]);
    // A replace may name the legacy root too.
    const replaced = await container.replace({
      id: 'legacy-root',
      partitionKey: { paths: ['/key'] },
      indexingPolicy: { excludedPaths: [{ path: '/' }] },
    });
    expect(replaced.resource?.indexingPolicy?.excludedPaths).toEqual([{ path: '/*' }, { path: '/"_etag"/?' }]);
    expect(replaced.resource?.indexingPolicy?.includedPaths).toEqual([]);
  });
});

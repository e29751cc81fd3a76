import { IndexingMode } from '@azure/cosmos';
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

    const { resource } = await container.replace({ id: 'policy', partitionKey: { paths: ['/pk'] }, indexingPolicy: { indexingMode: IndexingMode.none, automatic: false } });
    expect(resource?.indexingPolicy).toEqual({ indexingMode: 'none', automatic: false, includedPaths: [], excludedPaths: [] });
  });

  it('fills in the default policy and refuses an unknown mode or a path without /? or /*', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { resource } = await db.containers.create({ id: 'plain', partitionKey: { paths: ['/pk'] } });
    expect(resource?.indexingPolicy).toEqual({ indexingMode: 'consistent', automatic: true, includedPaths: [{ path: '/*' }], excludedPaths: [{ path: '/"_etag"/?' }] });
    await expect(db.containers.create({ id: 'bad-mode', partitionKey: { paths: ['/pk'] }, indexingPolicy: { indexingMode: 'eventual' as IndexingMode } })).rejects.toMatchObject({ code: 400 });
    await expect(db.containers.create({ id: 'bad-path', partitionKey: { paths: ['/pk'] }, indexingPolicy: { includedPaths: [{ path: '/status' }] } })).rejects.toMatchObject({ code: 400 });
  });
});

import { BulkOperationType, ChangeFeedStartFrom, Container, OperationInput } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, startTestCosmos } from '../../helpers/cosmos';

interface Doc {
  id: string;
  pk: string;
  n?: number;
  _lsn?: number;
}

describe('cosmos emulator: transactional batch and bulk through @azure/cosmos', () => {
  let cosmos: TestCosmos;
  let container: Container;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const db = await createTestDatabase(cosmos.client);
    container = (await db.containers.create({ id: 'b', partitionKey: { paths: ['/pk'] } })).container;
  });
  afterAll(() => cosmos.close());

  it('commits every operation of a batch under one LSN', async () => {
    await container.items.create({ id: 'existing', pk: 'P', n: 0 });
    await container.items.create({ id: 'gone', pk: 'P' });
    const ops: OperationInput[] = [
      { operationType: BulkOperationType.Create, resourceBody: { id: 'b1', pk: 'P', n: 1 } },
      { operationType: BulkOperationType.Upsert, resourceBody: { id: 'b2', pk: 'P', n: 2 } },
      { operationType: BulkOperationType.Replace, id: 'existing', resourceBody: { id: 'existing', pk: 'P', n: 10 } },
      { operationType: BulkOperationType.Patch, id: 'b1', resourceBody: { operations: [{ op: 'incr', path: '/n', value: 100 }] } },
      { operationType: BulkOperationType.Delete, id: 'gone' },
      { operationType: BulkOperationType.Read, id: 'b2' },
    ];
    const response = await container.items.batch(ops, 'P');
    expect(response.code).toBe(200);
    expect(response.result!.map((r) => r.statusCode)).toEqual([201, 201, 200, 200, 204, 200]);
    expect(response.result![0].eTag).toEqual(expect.stringMatching(/^".+"$/));
    const b1 = (await container.item('b1', 'P').read<Doc>()).resource!;
    expect(b1.n).toBe(101);
    // one LSN for the whole batch (only change-feed items carry _lsn)
    const feed = await container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning('P') }).readNext();
    const lsn = new Map(feed.result.map((d) => [d.id, d._lsn]));
    expect(lsn.get('b1')).toEqual(expect.any(Number));
    expect(lsn.get('b2')).toBe(lsn.get('b1'));
    expect(lsn.get('existing')).toBe(lsn.get('b1'));
    expect((await container.item('gone', 'P').read()).statusCode).toBe(404);
  });

  it('is all-or-nothing: the failing operation keeps its status, the others answer 424, nothing is written', async () => {
    await container.items.create({ id: 'taken', pk: 'Q' });
    const ops: OperationInput[] = [
      { operationType: BulkOperationType.Create, resourceBody: { id: 'q1', pk: 'Q' } },
      { operationType: BulkOperationType.Create, resourceBody: { id: 'taken', pk: 'Q' } },
      { operationType: BulkOperationType.Upsert, resourceBody: { id: 'q3', pk: 'Q' } },
    ];
    const response = await container.items.batch(ops, 'Q');
    expect(response.code).toBe(207);
    expect(response.result!.map((r) => r.statusCode)).toEqual([424, 409, 424]);
    expect((await container.item('q1', 'Q').read()).statusCode).toBe(404);
    expect((await container.item('q3', 'Q').read()).statusCode).toBe(404);
  });

  it('fails the whole batch on a stale If-Match (412) or a missing document (404)', async () => {
    const { resource } = await container.items.create<Doc>({ id: 'r1', pk: 'R', n: 1 });
    await container.item('r1', 'R').replace({ id: 'r1', pk: 'R', n: 2 });
    const stale = await container.items.batch(
      [
        { operationType: BulkOperationType.Upsert, resourceBody: { id: 'r2', pk: 'R' } },
        {
          operationType: BulkOperationType.Replace,
          id: 'r1',
          resourceBody: { id: 'r1', pk: 'R', n: 3 },
          ifMatch: resource!._etag as string,
        },
      ],
      'R',
    );
    expect(stale.result!.map((r) => r.statusCode)).toEqual([424, 412]);
    const missing = await container.items.batch([{ operationType: BulkOperationType.Delete, id: 'nothing' }], 'R');
    expect(missing.result!.map((r) => r.statusCode)).toEqual([404]);
    expect((await container.item('r1', 'R').read<Doc>()).resource!.n).toBe(2);
  });

  it("refuses a batch whose operation names another partition key, in the service's words, and writes nothing", async () => {
    const ops: OperationInput[] = [
      { operationType: BulkOperationType.Create, resourceBody: { id: 'k1', pk: 'K' }, partitionKey: 'K' },
      { operationType: BulkOperationType.Upsert, resourceBody: { id: 'k2', pk: 'K' }, partitionKey: 'other' },
    ];
    // the SDK rethrows the 400 as "Batch request error: <the service's message>"
    await expect(container.items.batch(ops, 'K')).rejects.toThrow(
      'One or more operations within the batch request have a different partition key value than the request.',
    );
    await expect(container.item('k1', 'K').read()).resolves.toMatchObject({ statusCode: 404 });
  });

  it('runs bulk operations across partitions, each on its own', async () => {
    const ops: OperationInput[] = [];
    for (let i = 0; i < 40; i++)
      ops.push({
        operationType: BulkOperationType.Upsert,
        partitionKey: `k${i % 9}`,
        resourceBody: { id: `bulk-${i}`, pk: `k${i % 9}`, n: i },
      });
    ops.push({ operationType: BulkOperationType.Create, partitionKey: 'k0', resourceBody: { id: 'bulk-0', pk: 'k0' } });
    const results = await container.items.executeBulkOperations(ops);
    expect(results.slice(0, 40).every((r) => r.response?.statusCode === 201)).toBe(true);
    expect(results[40].error?.code ?? results[40].response?.statusCode).toBe(409);
    const { resources } = await container.items.query('SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.id, "bulk-")').fetchAll();
    expect(resources).toEqual([40]);
    expect(cosmos.emu.counters().batch).toBeGreaterThan(0);
  });
});

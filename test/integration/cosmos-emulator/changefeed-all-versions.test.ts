import {
  BulkOperationType,
  ChangeFeedMode,
  ChangeFeedPolicy,
  ChangeFeedRetentionTimeSpan,
  ChangeFeedStartFrom,
  Container,
  Database,
  ErrorResponse,
} from '@azure/cosmos';
import { TestCosmos, createTestDatabase, hashV2Key, startTestCosmos } from '../../helpers/cosmos';
import { drain } from './feed-util';

interface Change {
  current?: { id: string; pk: string; v: number; _lsn: number };
  metadata: {
    operationType: 'create' | 'replace' | 'delete';
    lsn: number;
    crts: number;
    previousImageLSN?: number;
    timeToLiveExpired?: boolean;
    id?: string;
    partitionKey?: Record<string, unknown>;
  };
}

describe('cosmos emulator: change feed in all-versions-and-deletes mode through @azure/cosmos', () => {
  let cosmos: TestCosmos;
  let db: Database;
  let container: Container;

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    db = await createTestDatabase(cosmos.client);
  });
  afterAll(() => cosmos.close());

  beforeEach(async () => {
    container = (
      await db.containers.create({
        id: `avad-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`,
        partitionKey: hashV2Key('/pk'),
        changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(5)),
      })
    ).container;
  });

  const allVersions = (changeFeedStartFrom: ChangeFeedStartFrom, maxItemCount?: number) =>
    container.items.getChangeFeedIterator<Change>({
      changeFeedStartFrom,
      changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
      maxItemCount,
    });

  it('refuses to start from the beginning, as the service does: outside the retention period (400)', async () => {
    await container.items.create({ id: 'a', pk: 'p', v: 1 });
    const error = await allVersions(ChangeFeedStartFrom.Beginning())
      .readNext()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorResponse);
    expect((error as ErrorResponse).code).toBe(400);
    expect((error as ErrorResponse).message).toContain('You must read the change feed from within the retention period.');
  });

  it('from now: every create, replace and delete after the start, in LSN order, with the service metadata', async () => {
    await container.items.create({ id: 'before', pk: 'p', v: 0 });
    const start = await drain(allVersions(ChangeFeedStartFrom.Now()));
    expect(start.items).toEqual([]);

    const created = await container.items.create({ id: 'a', pk: 'p', v: 1 });
    await container.items.upsert({ id: 'a', pk: 'p', v: 2 });
    await container.item('a', 'p').replace({ id: 'a', pk: 'p', v: 3 });
    await container.item('a', 'p').delete();
    await container.items.upsert({ id: 'a', pk: 'p', v: 4 }); // recreated after its delete: a create again

    const { items } = await drain(allVersions(ChangeFeedStartFrom.Continuation(start.continuation), 2));
    expect(items.map((c) => c.metadata.operationType)).toEqual(['create', 'replace', 'replace', 'delete', 'create']);
    expect(items.map((c) => c.current?.v)).toEqual([1, 2, 3, undefined, 4]);
    const lsns = items.map((c) => c.metadata.lsn);
    expect(lsns).toEqual([...lsns].sort((x, y) => x - y));
    expect(items[0].current!._lsn).toBe(items[0].metadata.lsn);
    expect(items[0].metadata.crts).toBe(created.resource!._ts);
    expect(items[0].metadata.previousImageLSN).toBeUndefined();
    expect(items[1].metadata.previousImageLSN).toBe(items[0].metadata.lsn);
    expect(items[3].metadata).toMatchObject({
      id: 'a',
      partitionKey: { pk: 'p' },
      timeToLiveExpired: false,
      previousImageLSN: items[2].metadata.lsn,
    });
    expect(items[4].metadata.previousImageLSN).toBeUndefined();
  });

  it('is scoped by partition key and by feed range; a transactional batch keeps one LSN', async () => {
    const start = await drain(allVersions(ChangeFeedStartFrom.Now()));
    const one = await drain(
      container.items.getChangeFeedIterator<Change>({
        changeFeedStartFrom: ChangeFeedStartFrom.Now('one'),
        changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
      }),
    );
    expect(one.items).toEqual([]);
    await container.items.create({ id: 'x', pk: 'one', v: 1 });
    await container.items.create({ id: 'y', pk: 'two', v: 1 });
    await container.items.batch(
      [
        { operationType: BulkOperationType.Replace, id: 'x', resourceBody: { id: 'x', pk: 'one', v: 2 } },
        { operationType: BulkOperationType.Create, resourceBody: { id: 'z', pk: 'one', v: 1 } },
      ],
      'one',
    );

    const all = await drain(allVersions(ChangeFeedStartFrom.Continuation(start.continuation)));
    const forOne = all.items.filter((c) => c.current?.pk === 'one');
    expect(forOne.map((c) => [c.current!.id, c.metadata.operationType])).toEqual([
      ['x', 'create'],
      ['x', 'replace'],
      ['z', 'create'],
    ]);
    expect(forOne[1].metadata.lsn).toBe(forOne[2].metadata.lsn);
    const scoped = await drain(allVersions(ChangeFeedStartFrom.Continuation(one.continuation)));
    expect(scoped.items).toEqual(forOne);

    const ranges = await container.getFeedRanges();
    expect(ranges.length).toBeGreaterThan(1);
    const continuations: string[] = [];
    for (const range of ranges) {
      const rangeStart = await drain(
        container.items.getChangeFeedIterator<Change>({
          changeFeedStartFrom: ChangeFeedStartFrom.Now(range),
          changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
        }),
      );
      expect(rangeStart.items).toEqual([]);
      continuations.push(rangeStart.continuation);
    }
    await container.item('y', 'two').delete();
    await container.item('x', 'one').delete();
    const perRange: Change[][] = [];
    for (const continuation of continuations)
      perRange.push((await drain(allVersions(ChangeFeedStartFrom.Continuation(continuation)))).items);
    const deletes = perRange.flat().map((c) => [c.metadata.id, c.metadata.operationType]);
    expect(deletes.sort()).toEqual([
      ['x', 'delete'],
      ['y', 'delete'],
    ]);
  });

  it('needs a retention policy: a container without one answers 400', async () => {
    const plain = (await db.containers.create({ id: `plain-${Date.now()}`, partitionKey: hashV2Key('/pk') })).container;
    const error = await plain.items
      .getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Now(), changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes })
      .readNext()
      .catch((e: unknown) => e);
    expect((error as ErrorResponse).code).toBe(400);
  });
});

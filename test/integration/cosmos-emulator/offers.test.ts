import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CosmosClient, OfferDefinition, PermissionMode } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, emulatorClientOptions, startTestCosmos } from '../../helpers/cosmos';

/** Provisioned throughput through the SDK's own calls: readOffer, offers feed, replace, autoscale; and what a restart keeps. */
describe('cosmos emulator: offers (provisioned throughput)', () => {
  let cosmos: TestCosmos;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
  });
  afterAll(() => cosmos.close());

  it('gives a container the throughput it asks for, the default 400 RU/s otherwise, and none in a database that shares throughput', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container: manual, resource: manualDef } = await db.containers.create({
      id: 'manual',
      partitionKey: { paths: ['/pk'] },
      throughput: 1000,
    });
    const { container: plain } = await db.containers.create({ id: 'plain', partitionKey: { paths: ['/pk'] } });
    const { resource: offer } = await manual.readOffer();
    expect(offer).toMatchObject({
      offerResourceId: manualDef?._rid,
      resource: manualDef?._self,
      offerVersion: 'V2',
      content: { offerThroughput: 1000 },
    });
    expect((await plain.readOffer()).resource?.content?.offerThroughput).toBe(400);
    expect((await db.readOffer()).resource).toBeUndefined();

    const { database: shared } = await cosmos.client.databases.create({ id: `${db.id}-shared`, throughput: 600 });
    const { resource: sharedDef } = await shared.read();
    const { container: inShared } = await shared.containers.create({ id: 'in-shared', partitionKey: { paths: ['/pk'] } });
    expect((await shared.readOffer()).resource).toMatchObject({ offerResourceId: sharedDef?._rid, content: { offerThroughput: 600 } });
    expect((await inShared.readOffer()).resource).toBeUndefined();
    await shared.delete();
  });

  it('creates autoscale offers from maxThroughput (database and container) and refuses invalid throughput with 400', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container } = await db.containers.create({ id: 'auto', partitionKey: { paths: ['/pk'] }, maxThroughput: 50_000 });
    const { resource } = await container.readOffer();
    expect(resource?.content?.offerAutopilotSettings?.maxThroughput).toBe(50_000);
    expect(resource?.content?.offerThroughput).toBe(5_000);

    const { database: autoDb } = await cosmos.client.databases.create({ id: `${db.id}-auto`, maxThroughput: 4000 });
    expect((await autoDb.readOffer()).resource?.content?.offerAutopilotSettings?.maxThroughput).toBe(4000);
    await autoDb.delete();

    await expect(db.containers.create({ id: 'too-low', partitionKey: { paths: ['/pk'] }, throughput: 100 })).rejects.toMatchObject({
      code: 400,
    });
    await expect(db.containers.create({ id: 'odd-auto', partitionKey: { paths: ['/pk'] }, maxThroughput: 1500 })).rejects.toMatchObject({
      code: 400,
    });
    await expect(db.container('too-low').read()).rejects.toMatchObject({ code: 404 });
  });

  it('gives a container created with manual throughput one physical partition per 6,000 RU/s and one with autoscale one per 10,000 RU/s of its maximum, as the service does; without, the configured count', async () => {
    const db = await createTestDatabase(cosmos.client);
    const ranges = async (id: string, extra: { throughput?: number; maxThroughput?: number }): Promise<number> => {
      const { container } = await db.containers.create({ id, partitionKey: { paths: ['/pk'] }, ...extra });
      return (await container.readPartitionKeyRanges().fetchAll()).resources.length;
    };
    expect(await ranges('small', { throughput: 400 })).toBe(1);
    expect(await ranges('six', { throughput: 6_000 })).toBe(1);
    expect(await ranges('just-over', { throughput: 6_100 })).toBe(2);
    expect(await ranges('eighteen', { throughput: 18_000 })).toBe(3);
    expect(await ranges('big', { throughput: 25_100 })).toBe(5);
    expect(await ranges('auto', { maxThroughput: 50_000 })).toBe(5);
    expect(await ranges('auto-over', { maxThroughput: 11_000 })).toBe(2);
    expect(await ranges('default', {})).toBe(4);
  });

  it('lists, queries, reads and replaces offers; a replace needs the current etag when it names one; deleting the container drops its offer', async () => {
    const db = await createTestDatabase(cosmos.client);
    const { container, resource: def } = await db.containers.create({ id: 'replaced', partitionKey: { paths: ['/pk'] }, throughput: 400 });
    const { resources: all } = await cosmos.client.offers.readAll().fetchAll();
    const mine = all.find((o) => o.offerResourceId === def?._rid);
    expect(mine).toBeDefined();
    const { resources: queried } = await cosmos.client.offers
      .query<OfferDefinition>({
        query: 'SELECT * FROM root r WHERE r.offerResourceId = @rid',
        parameters: [{ name: '@rid', value: def?._rid ?? '' }],
      })
      .fetchAll();
    expect(queried.map((o) => o.id)).toEqual([mine?.id]);

    const offer = cosmos.client.offer(mine?.id ?? '');
    const { resource: read } = await offer.read();
    expect(read?.content?.offerThroughput).toBe(400);
    const { resource: replaced } = await offer.replace({
      ...read,
      content: { ...read?.content, offerThroughput: 1200 },
    } as OfferDefinition);
    expect(replaced?.content?.offerThroughput).toBe(1200);
    expect((await container.readOffer()).resource?.content?.offerThroughput).toBe(1200);
    await expect(offer.replace({ ...read, content: { ...read?.content, offerThroughput: 450 } } as OfferDefinition)).rejects.toMatchObject({
      code: 400,
    });
    await expect(
      offer.replace({ ...read, content: { ...read?.content, offerThroughput: 800 } } as OfferDefinition, {
        accessCondition: { type: 'IfMatch', condition: String(read?._etag) },
      }),
    ).rejects.toMatchObject({ code: 412 });

    await container.delete();
    const { resources: after } = await cosmos.client.offers.readAll().fetchAll();
    expect(after.some((o) => o.offerResourceId === def?._rid)).toBe(false);
    await expect(offer.read()).rejects.toMatchObject({ code: 404 });
  });

  it('keeps offers, users and permissions (and their tokens) across a restart with a data directory', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cosmos-emulator-offers-'));
    try {
      const first = await startTestCosmos({ dataDir });
      const { database } = await first.client.databases.create({ id: 'kept', throughput: 700 });
      const { container } = await database.containers.create({ id: 'own', partitionKey: { paths: ['/pk'] }, maxThroughput: 2000 });
      const { user } = await database.users.create({ id: 'u' });
      const { resource: perm } = await user.permissions.create({ id: 'p', permissionMode: PermissionMode.Read, resource: container.url });
      await first.close();
      const second = await startTestCosmos({ dataDir });
      try {
        const db = second.client.database('kept');
        expect((await db.readOffer()).resource?.content?.offerThroughput).toBe(700);
        expect((await db.container('own').readOffer()).resource?.content?.offerAutopilotSettings?.maxThroughput).toBe(2000);
        expect((await db.user('u').permission('p').read()).resource?.resource).toBe('dbs/kept/colls/own');
        const { key: _key, ...options } = emulatorClientOptions(second.emu);
        const byToken = new CosmosClient({ ...options, resourceTokens: { own: String(perm?._token) } });
        try {
          expect((await byToken.database('kept').container('own').read()).resource?.id).toBe('own');
        } finally {
          byToken.dispose();
        }
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

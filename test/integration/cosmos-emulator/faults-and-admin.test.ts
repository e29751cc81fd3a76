import { Container } from '@azure/cosmos';
import { TestCosmos, createTestDatabase, emulatorClient, startTestCosmos } from '../../helpers/cosmos';
import { adminRequest } from './raw-client';

describe('cosmos emulator: fault injection, counters and the admin API', () => {
  let cosmos: TestCosmos;
  let container: Container;
  let dbId: string;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const db = await createTestDatabase(cosmos.client);
    dbId = db.id;
    container = (await db.containers.create({ id: 'f', partitionKey: { paths: ['/pk'] } })).container;
  });
  afterAll(() => cosmos.close());
  afterEach(() => cosmos.emu.clearFaults());

  it('injects 429s with x-ms-retry-after-ms that the SDK retries transparently', async () => {
    cosmos.emu.resetCounters();
    cosmos.emu.setFaults({ throttleRate: 1, retryAfterMs: 5, count: 3, kinds: ['write'] });
    const response = await container.items.create({ id: 'throttled', pk: 'p' });
    expect(response.statusCode).toBe(201);
    expect(response.headers['x-ms-throttle-retry-count']).toBe(3);
    const c = cosmos.emu.counters();
    expect(c.throttled).toBe(3);
    expect(c.write).toBe(1);
  });

  it('lets the 429 through once the SDK has spent its retries', async () => {
    const impatient = emulatorClient(cosmos.emu, {
      connectionPolicy: { retryOptions: { maxRetryAttemptCount: 1, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 5 } },
    });
    try {
      cosmos.emu.setFaults({ throttleRate: 1, retryAfterMs: 1, kinds: ['pointRead'] });
      await expect(impatient.database(dbId).container('f').item('throttled', 'p').read()).rejects.toMatchObject({
        code: 429,
        retryAfterInMs: 1,
      });
    } finally {
      impatient.dispose();
    }
  });

  it('injects 503s, which reach the caller (no other region to fail over to), then stop once spent', async () => {
    await container.items.create({ id: 'r503', pk: 'p' });
    cosmos.emu.resetCounters();
    cosmos.emu.setFaults({ unavailableRate: 1, count: 1, kinds: ['pointRead'] });
    await expect(container.item('r503', 'p').read()).rejects.toMatchObject({ code: 503 });
    expect((await container.item('r503', 'p').read()).statusCode).toBe(200);
    cosmos.emu.setFaults({ unavailableRate: 1, count: 1, method: 'POST' });
    await expect(container.items.create({ id: 'w503', pk: 'p' })).rejects.toMatchObject({ code: 503 });
    expect((await container.item('w503', 'p').read()).statusCode).toBe(404);
    expect(cosmos.emu.counters().unavailable).toBe(2);
  });

  it('adds latency to matching requests only', async () => {
    await container.items.create({ id: 'slow', pk: 'p' });
    cosmos.emu.setFaults({ latencyMs: 300, count: 1, path: '/docs/slow$' });
    const started = Date.now();
    await container.item('slow', 'p').read();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(cosmos.emu.counters().delayed).toBeGreaterThanOrEqual(1);
  });

  it('drops connections: the SDK retries a read, a dropped write fails and is not applied', async () => {
    await container.items.create({ id: 'drop-read', pk: 'p' });
    cosmos.emu.resetCounters();
    cosmos.emu.setFaults({ dropRate: 1, count: 1, kinds: ['pointRead'] });
    expect((await container.item('drop-read', 'p').read()).statusCode).toBe(200);
    expect(cosmos.emu.counters().dropped).toBe(1);
    cosmos.emu.setFaults({ dropRate: 1, count: 1, kinds: ['write'] });
    await expect(container.items.create({ id: 'drop-write', pk: 'p' })).rejects.toThrow();
    expect((await container.item('drop-write', 'p').read()).statusCode).toBe(404);
  });

  it('filters faults by method and path regex', async () => {
    const db = cosmos.client.database(dbId);
    const hot = (await db.containers.create({ id: 'hot', partitionKey: { paths: ['/pk'] } })).container;
    cosmos.emu.resetCounters();
    cosmos.emu.setFaults({ throttleRate: 1, retryAfterMs: 1, method: 'POST', path: '/colls/hot/docs$', count: 2 });
    await container.items.create({ id: 'cold-doc', pk: 'p' });
    expect(cosmos.emu.counters().throttled).toBe(0);
    await hot.items.create({ id: 'hot-doc', pk: 'p' });
    expect(cosmos.emu.counters().throttled).toBe(2);
  });

  it('counts requests by kind', async () => {
    cosmos.emu.resetCounters();
    await container.items.create({ id: 'k1', pk: 'p' });
    await container.items.upsert({ id: 'k1', pk: 'p', v: 2 });
    await container.item('k1', 'p').read();
    await container.items.batch([{ operationType: 'Create', resourceBody: { id: 'k2', pk: 'p' } }], 'p');
    await container.items.query('SELECT * FROM c', { partitionKey: 'p' }).fetchAll();
    const c = cosmos.emu.counters();
    expect(c).toMatchObject({ write: 2, pointRead: 1, batch: 1, query: 1, throttled: 0, unauthorized: 0 });
    expect(c.total).toBeGreaterThanOrEqual(5);
  });

  describe('over HTTP', () => {
    it('requires the master key as a bearer token', async () => {
      expect((await adminRequest(cosmos.emu, 'GET', 'counters', undefined, null)).status).toBe(401);
      const wrong = await adminRequest(cosmos.emu, 'GET', 'counters', undefined, 'bm90IHRoZSBrZXk=');
      expect(wrong.status).toBe(401);
      expect(wrong.json).toMatchObject({ code: 'Unauthorized', message: expect.stringContaining('Bearer') });
    });

    it('sets, lists and clears faults; reads and resets counters', async () => {
      const set = await adminRequest(cosmos.emu, 'PUT', 'faults', [{ throttleRate: 1, retryAfterMs: 2, count: 2, kinds: ['pointRead'] }]);
      expect(set.status).toBe(200);
      expect((await adminRequest(cosmos.emu, 'GET', 'faults')).json).toEqual({
        rules: [{ throttleRate: 1, retryAfterMs: 2, count: 2, kinds: ['pointRead'] }],
      });
      expect((await adminRequest(cosmos.emu, 'DELETE', 'counters')).status).toBe(204);
      await container.item('k1', 'p').read();
      const counters = (await adminRequest(cosmos.emu, 'GET', 'counters')).json as Record<string, number>;
      expect(counters).toMatchObject({ throttled: 2, pointRead: 1 });
      expect((await adminRequest(cosmos.emu, 'GET', 'faults')).json).toEqual({ rules: [] }); // spent
      await adminRequest(cosmos.emu, 'PUT', 'faults', { rules: [{ latencyMs: 1 }] });
      expect((await adminRequest(cosmos.emu, 'DELETE', 'faults')).status).toBe(204);
      expect((await adminRequest(cosmos.emu, 'GET', 'faults')).json).toEqual({ rules: [] });
    });

    it('rejects invalid rules and unknown calls', async () => {
      expect((await adminRequest(cosmos.emu, 'PUT', 'faults', { throttleRate: 2 })).status).toBe(400);
      expect((await adminRequest(cosmos.emu, 'PUT', 'faults', { path: '(' })).status).toBe(400);
      expect((await adminRequest(cosmos.emu, 'PUT', 'faults', { kinds: ['everything'] })).status).toBe(400);
      expect((await adminRequest(cosmos.emu, 'GET', 'nothing')).status).toBe(404);
      expect((await adminRequest(cosmos.emu, 'POST', 'split', { databaseId: dbId })).status).toBe(400);
    });
  });
});

import { TestCosmos, createTestDatabase, emulatorClient, startTestCosmos } from '../../helpers/cosmos';
import { RawResponse, rawRequest } from './raw-client';

describe('cosmos emulator: master-key auth and malformed requests', () => {
  let cosmos: TestCosmos;
  let dbId: string;
  let docs: string;
  beforeAll(async () => {
    cosmos = await startTestCosmos();
    const db = await createTestDatabase(cosmos.client);
    dbId = db.id;
    await db.containers.create({ id: 'c', partitionKey: { paths: ['/pk'] } });
    docs = `/dbs/${dbId}/colls/c/docs`;
  });
  afterAll(() => cosmos.close());

  const cosmosError = (res: RawResponse, status: number, code: string): void => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.json).toEqual({ code, message: expect.any(String) });
    expect((res.json as { message: string }).message.length).toBeGreaterThan(10);
  };

  it('answers 401 with a clear message when the SDK signs with the wrong key', async () => {
    const wrongKey = Buffer.from('not the emulator key, but valid base64').toString('base64');
    const client = emulatorClient({ endpoint: cosmos.emu.endpoint, key: wrongKey });
    try {
      await expect(client.databases.createIfNotExists({ id: 'nope' })).rejects.toMatchObject({
        code: 401,
        message: expect.stringContaining("authorization token can't serve the request"),
      });
      await expect(client.database(dbId).container('c').item('x', 'p').read()).rejects.toMatchObject({ code: 401 });
    } finally {
      client.dispose();
    }
    expect(cosmos.emu.counters().unauthorized).toBeGreaterThanOrEqual(2);
  });

  it('answers 401 without an authorization header, or with a signature over another resource', async () => {
    cosmosError(await rawRequest(cosmos.emu, 'GET', '/dbs', { sign: false }), 401, 'Unauthorized');
    const date = new Date().toUTCString();
    const { signature } = await import('./raw-client');
    const res = await rawRequest(cosmos.emu, 'GET', `/dbs/${dbId}`, {
      sign: false,
      headers: { 'x-ms-date': date, authorization: signature(cosmos.emu.key, 'GET', '/dbs/other', date) },
    });
    cosmosError(res, 401, 'Unauthorized');
    expect((res.json as { message: string }).message).toContain(`dbs/${dbId}`);
  });

  it('answers malformed bodies with 400 and never crashes', async () => {
    const pk = { 'x-ms-documentdb-partitionkey': '["p"]', 'content-type': 'application/json' };
    cosmosError(
      await rawRequest(cosmos.emu, 'POST', '/dbs', { body: '{not json', headers: { 'content-type': 'application/json' } }),
      400,
      'BadRequest',
    );
    cosmosError(await rawRequest(cosmos.emu, 'POST', '/dbs', { body: '{"id": 7}' }), 400, 'BadRequest');
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { body: '{"id":"a","pk":', headers: pk }), 400, 'BadRequest');
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { body: '[1,2]', headers: pk }), 400, 'BadRequest');
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { body: '', headers: pk }), 400, 'BadRequest');
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { body: '{"id":"a/b","pk":"p"}', headers: pk }), 400, 'BadRequest');
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { body: '{"id":"a","pk":"q"}', headers: pk }), 400, 'BadRequest');
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { body: '{"id":"a","pk":"p","ttl":"x"}', headers: pk }), 400, 'BadRequest');
  });

  it('stores a "__proto__" property as plain data', async () => {
    const pk = { 'x-ms-documentdb-partitionkey': '["p"]', 'content-type': 'application/json' };
    const created = await rawRequest(cosmos.emu, 'POST', docs, {
      body: '{"id":"proto","pk":"p","__proto__":{"polluted":true}}',
      headers: pk,
    });
    expect(created.status).toBe(201);
    const read = await rawRequest(cosmos.emu, 'GET', `${docs}/proto`, { headers: pk });
    expect(read.text).toContain('"__proto__":{"polluted":true}');
    const patched = await rawRequest(cosmos.emu, 'PATCH', `${docs}/proto`, {
      body: '{"operations":[{"op":"set","path":"/__proto__/polluted","value":1}]}',
      headers: pk,
    });
    expect(patched.status).toBe(400);
  });

  it('answers bad headers with 400', async () => {
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { body: '{"id":"a","pk":"p"}' }), 400, 'BadRequest'); // no partition key header
    cosmosError(await rawRequest(cosmos.emu, 'GET', `${docs}/a`, { headers: { 'x-ms-documentdb-partitionkey': 'p' } }), 400, 'BadRequest');
    cosmosError(
      await rawRequest(cosmos.emu, 'GET', `${docs}/a`, { headers: { 'x-ms-documentdb-partitionkey': '[[1]]' } }),
      400,
      'BadRequest',
    );
    const feed = { 'a-im': 'Incremental feed', 'x-ms-documentdb-partitionkeyrangeid': '0' };
    cosmosError(await rawRequest(cosmos.emu, 'GET', docs, { headers: { ...feed, 'if-none-match': '"abc"' } }), 400, 'BadRequest');
    cosmosError(await rawRequest(cosmos.emu, 'GET', docs, { headers: { ...feed, 'if-modified-since': 'yesterday' } }), 400, 'BadRequest');
    cosmosError(
      await rawRequest(cosmos.emu, 'GET', docs, { headers: { ...feed, 'x-ms-documentdb-partitionkeyrangeid': '77' } }),
      400,
      'BadRequest',
    );
    cosmosError(await rawRequest(cosmos.emu, 'GET', docs, { headers: { ...feed, 'x-ms-max-item-count': 'many' } }), 400, 'BadRequest');
    cosmosError(
      await rawRequest(cosmos.emu, 'GET', docs, { headers: { 'a-im': 'Full-Fidelity Feed', 'if-none-match': '*' } }),
      400,
      'BadRequest',
    );
  });

  it('refuses an all-versions-and-deletes change feed from the beginning as the service does: outside the retention period', async () => {
    const fromBeginning = await rawRequest(cosmos.emu, 'GET', docs, { headers: { 'a-im': 'Full-Fidelity Feed' } });
    cosmosError(fromBeginning, 400, 'BadRequest');
    expect(fromBeginning.text).toContain('You must read the change feed from within the retention period.');
  });

  it('answers bad queries and batches with 400', async () => {
    const query = { 'x-ms-documentdb-isquery': 'true', 'content-type': 'application/query+json' };
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { headers: query, body: '{"q": 1}' }), 400, 'BadRequest');
    cosmosError(
      await rawRequest(cosmos.emu, 'POST', docs, { headers: query, body: '{"query":"SELECT * FROM c","parameters":{}}' }),
      400,
      'BadRequest',
    );
    cosmosError(
      await rawRequest(cosmos.emu, 'POST', docs, {
        headers: { ...query, 'x-ms-continuation': 'garbage' },
        body: '{"query":"SELECT * FROM c"}',
      }),
      400,
      'BadRequest',
    );
    const batch = { 'x-ms-cosmos-is-batch-request': 'true', 'x-ms-cosmos-batch-atomic': 'true', 'x-ms-documentdb-partitionkey': '["p"]' };
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { headers: batch, body: '{}' }), 400, 'BadRequest');
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { headers: batch, body: '[{"operationType":"Explode"}]' }), 400, 'BadRequest');
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { headers: batch, body: '[{"operationType":"Create"}]' }), 400, 'BadRequest');
  });

  it('answers unknown addresses with 404, unsupported methods with 405, bad paths with 400', async () => {
    cosmosError(await rawRequest(cosmos.emu, 'GET', '/nothing/here'), 404, 'NotFound');
    cosmosError(await rawRequest(cosmos.emu, 'GET', `/dbs/${dbId}/colls/c/sprocs`), 404, 'NotFound');
    cosmosError(
      await rawRequest(cosmos.emu, 'GET', `/dbs/${dbId}/colls/missing/docs/x`, { headers: { 'x-ms-documentdb-partitionkey': '["p"]' } }),
      404,
      'NotFound',
    );
    cosmosError(await rawRequest(cosmos.emu, 'PATCH', '/dbs'), 405, 'MethodNotAllowed');
    cosmosError(await rawRequest(cosmos.emu, 'GET', '/dbs/%E0%A4%A'), 400, 'BadRequest');
  });

  it('refuses oversized requests and documents with 413', async () => {
    const pk = { 'x-ms-documentdb-partitionkey': '["p"]', 'content-type': 'application/json' };
    const big = JSON.stringify({ id: 'big', pk: 'p', blob: 'x'.repeat(2 * 1024 * 1024 + 10) });
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { body: big, headers: pk }), 413, 'RequestEntityTooLarge');
    const huge = JSON.stringify({ id: 'huge', pk: 'p', blob: 'x'.repeat(5 * 1024 * 1024) });
    cosmosError(await rawRequest(cosmos.emu, 'POST', docs, { body: huge, headers: pk }), 413, 'RequestEntityTooLarge');
  });

  it('still serves the SDK normally after all of that', async () => {
    const c = cosmos.client.database(dbId).container('c');
    await c.items.create({ id: 'fine', pk: 'p' });
    expect((await c.item('fine', 'p').read()).statusCode).toBe(200);
  });

  it("answers a query's correlated activity id, on success and on failure, as the gateway does (the SDK reads it into the response and the error)", async () => {
    const container = cosmos.client.database(dbId).container('c');
    const page = await container.items.query('SELECT * FROM c').fetchNext();
    expect(page.correlatedActivityId).toMatch(/^[0-9a-f-]{36}$/);
    const id = '0b5c8a2e-3f1d-4c6b-9a7e-2d4f6a8b0c1e';
    const ok = await rawRequest(cosmos.emu, 'GET', `/dbs/${dbId}`, { headers: { 'x-ms-cosmos-correlated-activityid': id } });
    expect(ok.headers.get('x-ms-cosmos-correlated-activityid')).toBe(id);
    const failed = await rawRequest(cosmos.emu, 'POST', docs, {
      body: JSON.stringify({ query: 'SELECT * frm c' }),
      headers: { 'content-type': 'application/query+json', 'x-ms-documentdb-isquery': 'true', 'x-ms-cosmos-correlated-activityid': id },
    });
    expect(failed.status).toBe(400);
    expect(failed.headers.get('x-ms-cosmos-correlated-activityid')).toBe(id);
    await expect(container.items.query('SELECT * frm c').fetchNext()).rejects.toMatchObject({
      code: 400,
      headers: { 'x-ms-cosmos-correlated-activityid': expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
  });
});

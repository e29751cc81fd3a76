import { BulkOperationType, ChangeFeedStartFrom, Container, Database } from '@azure/cosmos';
import { TestCosmos, startTestCosmos } from '../../helpers/cosmos';
import { rawRequest } from './raw-client';
import { rawExchange } from './raw-socket';

/**
 * Nothing a client sends may take the emulator down: odd names, ids, headers and bodies through the
 * real SDK and as raw HTTP. After each, the server must still answer, and no request may have hit an
 * unexpected exception (a 500).
 */
const ODD_NAMES = [
  '日本語のデータベース',
  'emoji-😀-🚀',
  'Ümläut-ß',
  'with space',
  'ctl-\u0001-\u007f',
  'x'.repeat(255),
  `quote'"`,
  'percent%25%',
  'tab\tname',
];
// (an id that ends with '?' cannot be read back through the SDK: it puts ids in URLs unescaped and its
// HTTP stack drops an empty query string, so the request names another resource; the service sees the same)
const ODD_IDS = [
  '日本',
  '😀',
  'q?x=1&y=2',
  '?middle?x',
  'a%2Fb',
  '%',
  'ctl\u0001\u0002',
  'lead space',
  'trailing ',
  'x'.repeat(1023),
  '\u200b',
  'back`tick',
  'semi;colon',
  '\u{10FFFF}',
];

describe('cosmos emulator: no request can crash it', () => {
  let cosmos: TestCosmos;
  const internalErrors: unknown[] = [];
  beforeAll(async () => {
    cosmos = await startTestCosmos({ onInternalError: (err) => internalErrors.push(err) });
  });
  afterAll(() => cosmos.close());

  async function stillServing(): Promise<void> {
    const res = await rawRequest(cosmos.emu, 'GET', '/');
    expect(res.status).toBe(200);
  }

  afterEach(async () => {
    await stillServing();
    expect(internalErrors).toEqual([]);
  });

  it('serves every item and feed call in databases and containers with non-Latin, emoji and control-character names', async () => {
    for (const name of ODD_NAMES) {
      const { database } = await cosmos.client.databases.create({ id: name });
      const { container } = await database.containers.create({ id: name, partitionKey: { paths: ['/pk'] } });
      const created = await container.items.create({ id: 'a', pk: name, n: 1 });
      expect(created.statusCode).toBe(201);
      // the service URL-encodes names in x-ms-alt-content-path (a raw non-Latin name is no valid header)
      expect(created.headers['x-ms-alt-content-path']).toBe(`dbs/${encodeURIComponent(name)}/colls/${encodeURIComponent(name)}`);
      expect((await container.item('a', name).read()).resource).toMatchObject({ id: 'a', n: 1 });
      expect((await container.items.query('SELECT * FROM c').fetchAll()).resources).toHaveLength(1);
      expect((await container.items.readAll().fetchAll()).resources).toHaveLength(1);
      const feed = await container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(name) }).readNext();
      expect(feed.result).toHaveLength(1);
      const bulk = await container.items.bulk([{ operationType: BulkOperationType.Upsert, resourceBody: { id: 'b', pk: name } }]);
      expect(bulk[0].statusCode).toBe(201);
      await container.item('a', name).patch([{ op: 'set', path: '/n', value: 2 }]);
      await container.item('a', name).delete();
      await database.delete();
    }
  });

  it('stores and reads back items with odd ids, or refuses them with a 4xx', async () => {
    const { database } = await cosmos.client.databases.create({ id: 'odd-ids' });
    const { container } = await database.containers.create({ id: 'c', partitionKey: { paths: ['/pk'] } });
    for (const id of ODD_IDS) {
      for (const pk of ['p', id]) {
        let created;
        try {
          created = await container.items.create({ id, pk });
        } catch (err) {
          expect((err as { code?: number }).code).toBeGreaterThanOrEqual(400);
          expect((err as { code?: number }).code).toBeLessThan(500);
          continue;
        }
        expect(created.statusCode).toBe(201);
        const read = await container.item(id, pk).read<{ id: string; pk: string }>();
        expect(read.statusCode).toBe(200);
        expect(read.resource).toMatchObject({ id, pk });
        const byQuery = await container.items
          .query({ query: 'SELECT * FROM c WHERE c.id = @id', parameters: [{ name: '@id', value: id }] }, { partitionKey: pk })
          .fetchAll();
        expect(byQuery.resources).toHaveLength(1);
        await container.item(id, pk).delete();
      }
    }
    await database.delete();
  });

  it('answers malformed bodies, headers and addresses with Cosmos-shaped 4xx errors', async () => {
    const { database } = await cosmos.client.databases.create({ id: 'raw' });
    await database.containers.create({ id: 'c', partitionKey: { paths: ['/pk'] } });
    const docs = '/dbs/raw/colls/c/docs';
    const pk = { 'x-ms-documentdb-partitionkey': '["p"]' };
    const bodies = [
      '',
      '{',
      'null',
      '[]',
      '"str"',
      '42',
      '{"id": 5, "pk": "p"}',
      '{"id": "x"}',
      `{"id":"d","pk":"p","deep":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      '\u0000\u0001',
      Buffer.from([0xff, 0xfe, 0x00]),
      // queries the emulator's own SQL layer (sql-text.ts, group-by.ts, like.ts) takes apart
      '{"query": "SELECT DISTINCT"}',
      '{"query": "SELECT * FROM c GROUP BY"}',
      '{"query": "SELECT c.a, COUNT(1) FROM c GROUP BY c.a, ("}',
      '{"query": "SELECT * FROM c OFFSET @x LIMIT @y", "parameters": [{"name": "@x", "value": "a"}]}',
      '{"query": "SELECT * FROM c OFFSET 1 LIMIT 1e999"}',
      '{"query": "SELECT * FROM c WHERE c.a LIKE"}',
      '{"query": "SELECT * FROM c WHERE c.a LIKE \'[\' ESCAPE \'\'"}',
      '{"query": "SELECT VALUE MakeSet(MakeList(c.a)) FROM c"}',
      '{"query": "SELECT VALUE DateTimeAdd(\'year\', 1e308, \'2024-01-01\') FROM c"}',
      '{"query": "SELECT VALUE c FROM c\\n/*opstream-emulator:group*/"}',
      '{"query": "SELECT COUNT(1) FROM c GROUP BY c.a\\n/*opstream-emulator:group*/"}',
      `{"query": "SELECT * FROM c WHERE c.a LIKE '${'%a'.repeat(200)}'"}`,
    ];
    const cases: Array<{ method: string; path: string; headers?: Record<string, string>; body?: string | Buffer }> = [];
    for (const body of bodies) {
      cases.push({ method: 'POST', path: docs, headers: pk, body });
      cases.push({ method: 'PUT', path: `${docs}/x`, headers: pk, body });
      cases.push({ method: 'PATCH', path: `${docs}/x`, headers: pk, body });
      cases.push({ method: 'POST', path: docs, headers: { ...pk, 'x-ms-cosmos-is-batch-request': 'true' }, body });
      cases.push({
        method: 'POST',
        path: docs,
        headers: { 'content-type': 'application/query+json', 'x-ms-documentdb-isquery': 'true' },
        body,
      });
      cases.push({ method: 'POST', path: docs, headers: { 'x-ms-cosmos-is-query-plan-request': 'True' }, body });
      cases.push({ method: 'POST', path: '/dbs', body });
      cases.push({ method: 'POST', path: '/dbs/raw/colls', body });
      cases.push({ method: 'PUT', path: '/dbs/raw/colls/c', body });
    }
    const oddHeaders: Array<Record<string, string>> = [
      { 'x-ms-documentdb-partitionkey': 'not json' },
      { 'x-ms-documentdb-partitionkey': '[1, 2, 3]' },
      { 'x-ms-documentdb-partitionkey': '[{"a": 1}]' },
      { 'x-ms-max-item-count': 'lots' },
      { 'x-ms-continuation': '\u00ff\u00fe garbage' },
      { 'a-im': 'Incremental feed', 'if-none-match': '"not-a-number"' },
      { 'a-im': 'Incremental feed', 'if-modified-since': 'yesterday' },
      { 'a-im': 'Full fidelity feed' },
      { 'a-im': 'Incremental feed', 'x-ms-start-epk': 'zz', 'x-ms-end-epk': 'FF' },
      { 'a-im': 'Incremental feed', 'x-ms-documentdb-partitionkeyrangeid': '999' },
      { 'x-ms-documentdb-partitionkeyrangeid': ',,,' },
      { 'if-match': '\u00e9' },
    ];
    for (const headers of oddHeaders) {
      cases.push({ method: 'GET', path: docs, headers });
      cases.push({ method: 'GET', path: `${docs}/x`, headers });
    }
    for (const path of [
      '/dbs/%E0%A4%A',
      '/dbs/raw/colls/c/docs/%',
      '/dbs/raw/colls/c/docs/a/b/c/d',
      '/dbs/raw/colls/c/pkranges/x',
      '/dbs/raw/colls/c/operations/nope',
      '/dbs/raw/users',
      '//',
      '/dbs//colls',
    ]) {
      cases.push({ method: 'GET', path });
      cases.push({ method: 'POST', path, body: '{}' });
    }
    for (const c of cases) {
      const res = await rawRequest(cosmos.emu, c.method, c.path, { headers: c.headers, body: c.body });
      const label = `${c.method} ${c.path} ${JSON.stringify(c.headers ?? {})} ${String(c.body ?? '').slice(0, 40)}`;
      expect({ label, serverError: res.status >= 500 }).toEqual({ label, serverError: false });
      if (res.status >= 400) expect(res.json).toEqual({ code: expect.any(String), message: expect.any(String) });
    }
  });

  it('survives what HTTP clients never send: broken request lines, huge headers, lying lengths, cut bodies', async () => {
    const date = new Date().toUTCString();
    const exchanges: Array<{ chunks: Array<string | Buffer>; close?: boolean; expect?: number }> = [
      { chunks: ['GET dbs HTTP/1.1\r\nHost: localhost\r\n\r\n'] },
      { chunks: ['GET * HTTP/1.1\r\nHost: localhost\r\n\r\n'] },
      { chunks: ['GET http://elsewhere/dbs HTTP/1.1\r\nHost: localhost\r\n\r\n'] },
      { chunks: ['BREW /pot HTTP/1.1\r\n\r\n'], expect: 400 },
      { chunks: ['this is not http\r\n\r\n'], expect: 400 },
      { chunks: [Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a])], expect: 400 },
      { chunks: [`GET / HTTP/1.1\r\nHost: localhost\r\nx-big: ${'a'.repeat(40_000)}\r\n\r\n`], expect: 431 },
      { chunks: [`GET /dbs/${Buffer.from('日本').toString('latin1')} HTTP/1.1\r\nHost: localhost\r\n\r\n`] },
      {
        chunks: [
          Buffer.concat([Buffer.from('GET /dbs/'), Buffer.from('日本', 'utf8'), Buffer.from(' HTTP/1.1\r\nHost: localhost\r\n\r\n')]),
        ],
      },
      { chunks: [`GET / HTTP/1.1\r\nHost: localhost\r\nx-ms-date: ${date}\r\nauthorization: \u00e9\u00ff\r\n\r\n`], expect: 401 },
      { chunks: ['POST /dbs HTTP/1.1\r\nHost: localhost\r\ncontent-length: 100\r\n\r\n{"id":'], close: true },
      { chunks: ['POST /dbs HTTP/1.1\r\nHost: localhost\r\ncontent-length: 5\r\n\r\n{"id":"long body"}'] },
      { chunks: ['POST /dbs HTTP/1.1\r\nHost: localhost\r\ncontent-length: -1\r\n\r\n{}'], expect: 400 },
      { chunks: ['POST /dbs HTTP/1.1\r\nHost: localhost\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}'], expect: 400 },
      { chunks: ['POST /dbs HTTP/1.1\r\nHost: localhost\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'], expect: 400 },
      { chunks: ['POST /dbs HTTP/1.1\r\nHost: localhost\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"id"'], close: true },
    ];
    for (const e of exchanges) {
      const res = await rawExchange(cosmos.emu, e.chunks, { closeAfterSend: e.close });
      if (e.expect !== undefined)
        expect({ sent: String(e.chunks[0]).slice(0, 60), status: res.status }).toEqual({
          sent: String(e.chunks[0]).slice(0, 60),
          status: e.expect,
        });
      else expect(res.status === 0 || (res.status >= 400 && res.status < 500)).toBe(true);
      await stillServing();
    }
  });

  it('refuses a request over 2 MB as a whole with 413, declared or chunked', async () => {
    const big = JSON.stringify({ id: 'big', pk: 'p', blob: 'x'.repeat(2 * 1024 * 1024) });
    const res = await rawRequest(cosmos.emu, 'POST', '/dbs', { body: big });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ code: 'RequestEntityTooLarge' });
    const size = Buffer.byteLength(big).toString(16);
    const chunked = await rawExchange(
      cosmos.emu,
      ['POST /dbs HTTP/1.1\r\nHost: localhost\r\ntransfer-encoding: chunked\r\n\r\n', `${size}\r\n${big}\r\n0\r\n\r\n`],
      { waitMs: 5000 },
    );
    expect(chunked.status).toBe(413);
  });

  it('keeps serving a container whose database was deleted under a running SDK client', async () => {
    const { database } = await cosmos.client.databases.create({ id: 'gone-db-日本' });
    const { container } = await database.containers.create({ id: 'c', partitionKey: { paths: ['/pk'] } });
    await container.items.create({ id: 'a', pk: 'p' });
    await database.delete();
    await expect(container.items.create({ id: 'b', pk: 'p' })).rejects.toMatchObject({ code: 404 });
    await expect(reread(database, container)).resolves.toBe(404);
  });
});

async function reread(database: Database, container: Container): Promise<number> {
  return (await database.container(container.id).item('a', 'p').read()).statusCode;
}

import { ChangeFeedStartFrom, CosmosClient } from '@azure/cosmos';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WELL_KNOWN_EMULATOR_KEY } from '@opstream/cosmos-emulator';
import { emulatorClient } from '../../helpers/cosmos';
import { EmulatorProcess, spawnEmulator } from './child-process';
import { drain } from './feed-util';
import { rawRequest } from './raw-client';

interface Doc {
  id: string;
  pk: string;
  n: number;
  _etag: string;
  _lsn: number;
}

type Body = Pick<Doc, 'id' | 'pk' | 'n'>;
const asDoc = (resource: unknown): Doc => resource as Doc;

describe('cosmos emulator CLI: --data-dir journal survives kill -9', () => {
  let dataDir: string;
  const procs: EmulatorProcess[] = [];
  const clients: CosmosClient[] = [];
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cosmos-emulator-durable-'));
  });
  afterAll(async () => {
    for (const c of clients) c.dispose();
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<{ proc: EmulatorProcess; client: CosmosClient }> {
    const proc = await spawnEmulator(['--port', '0', '--partitions', '4', '--data-dir', dataDir]);
    procs.push(proc);
    const client = emulatorClient(proc);
    clients.push(client);
    return { proc, client };
  }

  it('keeps every acknowledged write, the split and the LSN sequence across kill -9 and restart', async () => {
    const first = await start();
    expect(first.proc.key).toBe(WELL_KNOWN_EMULATOR_KEY);
    expect(first.proc.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const db = (await first.client.databases.create({ id: 'durable' })).database;
    const container = (await db.containers.create({ id: 'ops', partitionKey: { paths: ['/pk'] } })).container;
    const containerRid = (await container.read()).resource!._rid;

    // a settled first wave: creates, an update, a delete, a batch, a split
    const settled = new Map<string, Doc>();
    for (let i = 0; i < 40; i++) {
      const doc = asDoc((await container.items.create<Body>({ id: `s-${i}`, pk: `k${i % 7}`, n: i })).resource);
      settled.set(doc.id, doc);
    }
    settled.set('s-3', asDoc((await container.items.upsert<Body>({ id: 's-3', pk: 'k3', n: 333 })).resource));
    await container.item('s-4', 'k4').delete();
    settled.delete('s-4');
    const batch = await container.items.batch(
      [0, 1, 2].map((i) => ({ operationType: 'Create' as const, resourceBody: { id: `b-${i}`, pk: 'k1', n: i } })),
      'k1',
    );
    expect(batch.code).toBe(200);
    for (const r of batch.result!) settled.set(asDoc(r.resourceBody).id, asDoc(r.resourceBody));
    const split = await rawRequest(first.proc, 'POST', '/_admin/split', {
      sign: false,
      headers: { authorization: `Bearer ${first.proc.key}` },
      body: JSON.stringify({ databaseId: 'durable', containerId: 'ops', rangeId: '2' }),
    });
    expect(split.status).toBe(200);
    const feedBefore = await drain(container.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }));
    expect(feedBefore.items).toHaveLength(settled.size);

    // a second wave in flight, 32 at a time, killed with SIGKILL while writes are still being sent
    const acked = new Map<string, Doc>();
    let next = 0;
    let killed = false;
    const worker = async (): Promise<void> => {
      while (!killed) {
        const i = next++;
        try {
          const doc = asDoc((await container.items.create<Body>({ id: `w-${i}`, pk: `k${i % 11}`, n: i })).resource);
          if (!killed) acked.set(doc.id, doc);
        } catch {
          return; // the process is gone
        }
        if (acked.size >= 300 && !killed) {
          killed = true;
          first.proc.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    const exit = await first.proc.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(300);

    // restart on the same directory
    const second = await start();
    const c2 = second.client.database('durable').container('ops');
    expect((await c2.read()).resource!._rid).toBe(containerRid);
    // created without a version: still hash v1 after the replay, and still read back without a version
    expect((await c2.read()).resource!.partitionKey).toEqual({ paths: ['/pk'], kind: 'Hash' });
    for (const [id, doc] of [...settled, ...acked]) {
      const { resource, statusCode } = await c2.item(id, doc.pk).read<Doc>();
      expect(statusCode).toBe(200);
      expect(resource!._etag).toBe(doc._etag);
      expect(resource!.n).toBe(doc.n);
    }
    expect((await c2.item('s-4', 'k4').read()).statusCode).toBe(404);
    expect(await c2.getFeedRanges()).toHaveLength(5);

    // the LSN sequence continues, and a continuation token from before the crash still works
    // (only change-feed items carry _lsn; a write's LSN is in its session token `<range>:-1#<lsn>`)
    const everything = await drain(c2.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() }));
    const maxLsn = Math.max(...everything.items.map((d) => d._lsn));
    const fresh = await c2.items.create<Body>({ id: 'after-restart', pk: 'k0', n: -1 });
    expect(Number(String(fresh.headers['x-ms-session-token']).split('#').pop())).toBeGreaterThan(maxLsn);
    const resumed = await drain(
      c2.items.getChangeFeedIterator<Doc>({ changeFeedStartFrom: ChangeFeedStartFrom.Continuation(feedBefore.continuation) }),
    );
    const resumedIds = new Set(resumed.items.map((d) => d.id));
    for (const id of acked.keys()) expect(resumedIds.has(id)).toBe(true);
    expect(resumedIds.has('after-restart')).toBe(true);
    for (const id of settled.keys()) expect(resumedIds.has(id)).toBe(false);
    second.proc.child.kill('SIGTERM'); // one emulator per data directory
    expect((await second.proc.exited).code).toBe(0);
  });

  it('refuses a data directory another live emulator is using', async () => {
    const { proc } = await start();
    await expect(spawnEmulator(['--port', '0', '--data-dir', dataDir])).rejects.toThrow(/in use by another emulator/);
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);
  });

  it('shuts down cleanly on SIGTERM (exit 0) and keeps its data for the next start', async () => {
    const { proc, client } = await start();
    await client.database('durable').container('ops').items.upsert({ id: 'term', pk: 'k0', n: 1 });
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    expect(proc.output()).toMatch(/SIGTERM, shutting down/);
    const again = await start();
    expect((await again.client.database('durable').container('ops').item('term', 'k0').read()).statusCode).toBe(200);
    again.proc.child.kill('SIGINT');
    expect((await again.proc.exited).code).toBe(0);
  });
});

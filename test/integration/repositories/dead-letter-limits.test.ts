import { Writable } from 'node:stream';
import { ChangeFeedStartFrom } from '@azure/cosmos';
import {
  DeadLettersRepository,
  ensureContainers,
  InvalidDocumentError,
  OperationsRepository,
  type OpstreamContainers,
} from '../../../src/cosmos';
import { createLogger } from '../../../src/logging/logger';
import { createMetrics } from '../../../src/ops/metrics';
import { check } from '../../../src/schemas/validator';
import { jsonByteLength } from '../../../src/util/json-walk';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';
import { newSubscription, operation } from './documents';

const MB = 1_000_000;
const MiB = 1024 * 1024;

/** An invalid Operation (unknown status) whose JSON text takes `bytes` bytes. */
function operationOfSize(bytes: number): Record<string, unknown> {
  const s = newSubscription();
  const doc: Record<string, unknown> = { ...operation(s.pk, s.clusterArmId('big')), status: 'Exploded', padding: '' };
  doc.padding = 'p'.repeat(bytes - jsonByteLength(doc));
  expect(jsonByteLength(doc)).toBe(bytes);
  return doc;
}

function nested(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** Reads a stored invalid Operation back as the pipeline gets it: an InvalidDocumentError with the raw document. */
/** The document as the change feed hands it to the pipeline (with `_lsn`, which point reads do not carry). */
async function fromFeed(c: OpstreamContainers, doc: Record<string, unknown>): Promise<Record<string, unknown>> {
  const iterator = c.operations.items.getChangeFeedIterator<Record<string, unknown>>({
    changeFeedStartFrom: ChangeFeedStartFrom.Beginning(doc.partitionKey as string),
  });
  while (iterator.hasMoreResults) {
    const page = await iterator.readNext();
    const found = page.result.find((d) => d.id === doc.id);
    if (found) return found;
    if (page.result.length === 0) break;
  }
  throw new Error(`${String(doc.id)} not on the change feed`);
}

async function readInvalid(c: OpstreamContainers, doc: Record<string, unknown>): Promise<InvalidDocumentError> {
  const err = await new OperationsRepository(c.operations).read(doc.partitionKey as string, doc.id as string).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InvalidDocumentError);
  return err as InvalidDocumentError;
}

function logLines(): { logger: ReturnType<typeof createLogger>; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { logger: createLogger({ format: 'json', stream }), lines: () => chunks.map((c) => JSON.parse(c) as Record<string, unknown>) };
}

describe('dead letters of oversized and deeply nested documents (emulator)', () => {
  let cosmos: TestCosmos;
  let c: OpstreamContainers;

  beforeAll(async () => {
    cosmos = await startTestCosmos({ partitions: 2 });
    c = await ensureContainers(cosmos.client, uniqueName('dlimits'), { create: true });
  });
  afterEach(() => cosmos.emu.clearFaults());
  afterAll(() => cosmos.close());

  it('the emulator stores items up to 2 MiB, as Cosmos does, and refuses bigger ones with 413', async () => {
    for (const bytes of [1.9 * MB, 2.0 * MB, 2 * MiB - 512]) {
      const { resource } = await c.operations.items.create(operationOfSize(bytes));
      expect(resource?._etag).toBeDefined();
    }
    for (const bytes of [2.1 * MB, 2 * MiB]) {
      await expect(c.operations.items.create(operationOfSize(bytes))).rejects.toMatchObject({ code: 413 });
    }
  });

  it('the old dead letter of the largest storable document (the document and the reason) is refused with 413', async () => {
    const doc = operationOfSize(2 * MiB - 512);
    await c.operations.items.create(doc);
    const err = await readInvalid(c, doc);
    const whole = {
      id: uniqueName('whole'),
      partitionKey: doc.partitionKey,
      reason: 'validation',
      document: err.document,
      error: { message: err.message },
    };
    await expect(c.deadLetters.items.create(whole)).rejects.toMatchObject({ code: 413 });
  });

  it.each([
    ['1.9 MB', 1.9 * MB],
    ['2.0 MB', 2.0 * MB],
    ['2 MiB − 512 bytes (the largest stored)', 2 * MiB - 512],
  ])('an invalid Operation of %s: the dead letter keeps ~1 MiB with the identifiers, size and reason', async (_name, bytes) => {
    const doc = operationOfSize(bytes);
    await c.operations.items.create(doc);
    const err = await readInvalid(c, doc);
    const stored = await fromFeed(c, doc);
    expect(stored._lsn).toEqual(expect.any(Number));
    const repo = new DeadLettersRepository(c.deadLetters);
    const written = await repo.write({ container: 'Operations', document: stored, reason: 'validation', error: err, leaseToken: '0' });
    expect(written).toMatchObject({ outcome: 'written', truncated: true, partitionKey: doc.partitionKey });
    const dl = await repo.read(written.partitionKey, written.id);
    expect(dl).toBeDefined();
    expect(dl?.document).toMatchObject({
      id: doc.id,
      partitionKey: doc.partitionKey,
      _etag: stored._etag,
      _lsn: stored._lsn,
      status: 'Exploded',
    });
    expect(dl?.source).toMatchObject({
      id: doc.id,
      partitionKey: doc.partitionKey,
      etag: stored._etag,
      lsn: stored._lsn,
      sizeBytes: jsonByteLength(stored),
    });
    expect(dl?.truncated).toMatchObject({ originalBytes: jsonByteLength(stored), cut: ['size'] });
    expect(dl?.error).toMatchObject({ name: 'InvalidDocumentError', path: '/status' });
    expect(jsonByteLength(dl)).toBeLessThan(1.1 * MiB);
    // The same version again (a relist finds it again): nothing new.
    expect(await repo.write({ container: 'Operations', document: stored, reason: 'validation', error: err })).toMatchObject({
      outcome: 'exists',
      id: written.id,
    });
  });

  it('a 2.1 MB document (never stored; e.g. handed over by a caller) still gets a dead letter that fits', async () => {
    const doc = operationOfSize(2.1 * MB);
    const repo = new DeadLettersRepository(c.deadLetters);
    const result = check('operation', doc);
    const written = await repo.write({
      container: 'Operations',
      document: doc,
      reason: 'processing',
      error: result.ok ? 'x' : result.error,
    });
    expect(written).toMatchObject({ outcome: 'written', truncated: true });
    expect((await repo.read(written.partitionKey, written.id))?.truncated?.originalBytes).toBe(2.1 * MB);
  });

  it('a 413 from Cosmos on the dead letter itself: written again with the identifiers only', async () => {
    const doc = operationOfSize(2 * MiB - 512);
    await c.operations.items.create(doc);
    const err = await readInvalid(c, doc);
    // A copy budget over what Cosmos takes, so that the emulator answers 413 for real.
    const repo = new DeadLettersRepository(c.deadLetters, { copyLimits: { maxBytes: 3 * MiB, maxDepth: 64 } });
    const written = await repo.write({ container: 'Operations', document: err.document, reason: 'validation', error: err });
    expect(written).toMatchObject({ outcome: 'written', truncated: true });
    const dl = await repo.read(written.partitionKey, written.id);
    expect(dl?.truncated).toMatchObject({ cut: ['rejected'], originalBytes: jsonByteLength(err.document) });
    expect(dl?.document).toMatchObject({ id: doc.id, partitionKey: doc.partitionKey, $truncated: expect.stringContaining('HTTP 413') });
  });

  it('Cosmos refuses an item nested deeper than 128 levels (400), as the service does', async () => {
    const s = newSubscription();
    const doc = { ...operation(s.pk, s.clusterArmId('deeper')), externalId: nested(128) };
    await expect(c.operations.items.create(doc)).rejects.toMatchObject({ code: 400 });
  });

  it('an Operation nested as deep as Cosmos stores (inside externalId) is read, found invalid and dead-lettered with a cut copy', async () => {
    const s = newSubscription();
    const doc = { ...operation(s.pk, s.clusterArmId('deep')), externalId: nested(127) };
    await c.operations.items.create(doc);
    const err = await readInvalid(c, doc);
    expect(err.validation.issues.map((i) => i.field)).toEqual(['externalId']);
    const repo = new DeadLettersRepository(c.deadLetters);
    const written = await repo.write({
      container: 'Operations',
      document: err.document,
      reason: 'validation',
      error: err,
      leaseToken: '0',
    });
    expect(written).toMatchObject({ outcome: 'written', truncated: true });
    const dl = await repo.read(written.partitionKey, written.id);
    expect(dl?.truncated?.cut).toEqual(['depth']);
    expect(JSON.stringify(dl?.document)).toContain('[truncated: nested deeper than 64 levels]');
  });

  it('a DeadLetters container that answers 503 to every write: given up for now at the deadline, logged and counted, never thrown', async () => {
    cosmos.emu.setFaults({ unavailableRate: 1, kinds: ['write'], path: '/colls/DeadLetters/' });
    const { logger, lines } = logLines();
    const metrics = createMetrics({ defaultMetrics: false });
    const repo = new DeadLettersRepository(c.deadLetters, {
      logger,
      failures: metrics.deadLetterWriteFailures,
      retry: { deadlineMs: 1_500, coolDownMs: 60_000 },
    });
    const docs = [operationOfSize(2.0 * MB), { ...operationOfSize(1_000), externalId: nested(3_700) }];
    const started = Date.now();
    const results = [];
    for (const doc of docs)
      results.push(
        await repo.write({
          container: 'Operations',
          document: doc,
          reason: 'validation',
          error: new Error('invalid'),
          leaseToken: '05C1D9CD673398-0B',
        }),
      );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(results.map((r) => r.outcome === 'failed' && r.cause)).toEqual(['timeout', 'circuit-open']);
    expect(lines().map((l) => [l.level, l.operationId, l.leaseToken, l.reason, l.cause])).toEqual([
      ['error', docs[0].id, '05C1D9CD673398-0B', 'validation', 'timeout'],
      ['error', docs[1].id, '05C1D9CD673398-0B', 'validation', 'circuit-open'],
    ]);
    expect(lines()[0]).toMatchObject({
      status: 503,
      message: 'dead letter not written (timeout); retried in the background until Cosmos takes it; the feed moves on',
    });
    const text = await metrics.registry.getSingleMetricAsString('opstream_dead_letter_write_failures_total');
    expect(text).toContain('opstream_dead_letter_write_failures_total{reason="validation",cause="timeout"} 1');
    expect(text).toContain('opstream_dead_letter_write_failures_total{reason="validation",cause="circuit-open"} 1');
    expect((await new DeadLettersRepository(c.deadLetters).list()).items.filter((d) => docs.some((doc) => doc.id === d.source.id))).toEqual(
      [],
    );
  });

  it('a DeadLetters container that does not exist (404 on every write): given up at once', async () => {
    const { logger, lines } = logLines();
    const repo = new DeadLettersRepository(c.database.container('NoSuchDeadLetters'), { logger });
    const written = await repo.write({
      container: 'Operations',
      document: operationOfSize(1_000),
      reason: 'processing',
      error: new Error('boom'),
    });
    expect(written).toMatchObject({ outcome: 'failed', cause: 'rejected' });
    expect(lines()[0]).toMatchObject({ level: 'error', status: 404, reason: 'processing', cause: 'rejected' });
  });
});

import type { Container } from '@azure/cosmos';
import { Writable } from 'node:stream';
import { DeadLettersRepository, deadLetterId, type DeadLetterInput } from '../../../src/cosmos/dead-letters-repository';
import { InvalidDocumentError } from '../../../src/cosmos/errors';
import type { DeadLetter } from '../../../src/domain/types';
import { createLogger } from '../../../src/logging/logger';
import { check } from '../../../src/schemas/validator';
import { ManualClock } from '../../../src/util/clock';
import { ManualTimers } from '../../helpers/manual-timers';
import { waitFor } from '../../helpers/wait-for';
import { jsonByteLength, tooDeepAt } from '../../../src/util/json-walk';

type Create = (body: DeadLetter, options: { abortSignal?: AbortSignal }) => Promise<unknown>;

const cosmosError = (code: number): Error => Object.assign(new Error(`Message: {"code":${code}}`), { code });

/** A DeadLetters container whose creates answer with `create`; records every body sent. */
function fakeContainer(create: Create): { container: Container; bodies: DeadLetter[] } {
  const bodies: DeadLetter[] = [];
  const container = {
    id: 'DeadLetters',
    items: {
      create: (body: DeadLetter, options: { abortSignal?: AbortSignal } = {}) => {
        bodies.push(JSON.parse(JSON.stringify(body)) as DeadLetter);
        return create(body, options);
      },
    },
  } as unknown as Container;
  return { container, bodies };
}

function logCapture(): { logger: ReturnType<typeof createLogger>; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return {
    logger: createLogger({ format: 'json', stream, level: 'info' }),
    lines: () => chunks.map((c) => JSON.parse(c) as Record<string, unknown>),
  };
}

function invalidOperation(extra: Record<string, unknown> = {}): DeadLetterInput {
  const document = { id: 'op-1', partitionKey: 'sub-1', status: 'Bogus', _etag: '"e-1"', _lsn: 7, ...extra };
  const result = check('operation', document);
  if (result.ok) throw new Error('expected invalid');
  return {
    container: 'Operations',
    document,
    reason: 'validation',
    error: new InvalidDocumentError('Operations', result.error, document, 'sub-1'),
    leaseToken: '10-20',
  };
}

function nested(depth: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

function counter(): { inc: jest.Mock; calls: () => unknown[] } {
  const inc = jest.fn();
  return { inc, calls: () => inc.mock.calls.map((c: unknown[]) => c[0]) };
}

const fastRetry = {
  deadlineMs: 200,
  coolDownMs: 30_000,
  backoff: { retries: Infinity, initialDelayMs: 5, maxDelayMs: 20, multiplier: 2, jitter: 0 },
};

describe('DeadLettersRepository.write', () => {
  it('writes once per document version: the same version again is a 409, i.e. already there', async () => {
    const seen = new Set<string>();
    const { container, bodies } = fakeContainer(async (body) => {
      if (seen.has(body.id)) throw cosmosError(409);
      seen.add(body.id);
      return {};
    });
    const repo = new DeadLettersRepository(container);
    const input = invalidOperation();
    expect(await repo.write(input)).toMatchObject({ outcome: 'written', truncated: false, partitionKey: 'sub-1' });
    expect(await repo.write({ ...input, leaseToken: 'other' })).toMatchObject({ outcome: 'exists' });
    expect(await repo.write(invalidOperation({ _etag: '"e-2"' }))).toMatchObject({ outcome: 'written' });
    expect(bodies.map((b) => b.id)).toEqual([
      bodies[0].id,
      bodies[0].id,
      deadLetterId('Operations', { id: 'op-1', partitionKey: 'sub-1', _etag: '"e-2"' }),
    ]);
    expect(bodies[0]).toMatchObject({ source: { id: 'op-1', etag: '"e-1"', lsn: 7, leaseToken: '10-20' }, error: { path: '/request' } });
  });

  it('a 2.1 MB document: the dead letter keeps ~1 MiB with the identifiers, size and reason', async () => {
    const { container, bodies } = fakeContainer(async () => ({}));
    const repo = new DeadLettersRepository(container);
    const input = invalidOperation({ externalId: 'x'.repeat(2.1 * 1024 * 1024) });
    expect(await repo.write(input)).toMatchObject({ outcome: 'written', truncated: true });
    const body = bodies[0];
    expect(jsonByteLength(body)).toBeLessThan(1.1 * 1024 * 1024);
    expect(body.document).toMatchObject({ id: 'op-1', partitionKey: 'sub-1', _etag: '"e-1"', _lsn: 7, status: 'Bogus' });
    expect(body.truncated).toMatchObject({ originalBytes: jsonByteLength(input.document), cut: ['size'] });
    expect(body.source.sizeBytes).toBe(jsonByteLength(input.document));
    expect(body.reason).toBe('validation');
    expect(check('deadLetter', body).ok).toBe(true);
  });

  it('a document nested 3,700 levels deep: the copy stops at 64 levels', async () => {
    const { container, bodies } = fakeContainer(async () => ({}));
    const repo = new DeadLettersRepository(container);
    const input = invalidOperation({ externalId: nested(3_700) });
    expect(await repo.write(input)).toMatchObject({ outcome: 'written', truncated: true });
    expect(bodies[0].truncated?.cut).toEqual(['depth']);
    expect(tooDeepAt(bodies[0], 66)).toBeUndefined();
    expect(bodies[0].error.message).toContain('externalId nests deeper than 128 levels');
  });

  it('a refused dead letter (413, 400) is retried once with the identifiers only', async () => {
    const { container, bodies } = fakeContainer(async (body) => {
      if (!body.truncated?.cut.includes('rejected')) throw cosmosError(413);
      return {};
    });
    const repo = new DeadLettersRepository(container);
    expect(await repo.write(invalidOperation({ blob: 'y'.repeat(10_000) }))).toMatchObject({ outcome: 'written', truncated: true });
    expect(bodies).toHaveLength(2);
    expect(bodies[1].document).toEqual({
      id: 'op-1',
      partitionKey: 'sub-1',
      _etag: '"e-1"',
      _lsn: 7,
      $truncated: '[truncated: Cosmos refused the dead letter with the document copy (HTTP 413); only identifying fields kept]',
    });
    expect(bodies[1]).toMatchObject({ reason: 'validation', source: { sizeBytes: expect.any(Number) }, truncated: { cut: ['rejected'] } });
  });

  it('gives up on a container that refuses every write: error line, counter, no throw', async () => {
    const { container, bodies } = fakeContainer(async () => Promise.reject(cosmosError(400)));
    const { logger, lines } = logCapture();
    const failures = counter();
    const repo = new DeadLettersRepository(container, { logger, failures });
    const result = await repo.write(invalidOperation());
    expect(result).toMatchObject({ outcome: 'failed', cause: 'rejected' });
    expect(bodies).toHaveLength(2); // the full copy, then the identifiers only
    expect(failures.calls()).toEqual([{ reason: 'validation', cause: 'rejected' }]);
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'dead letter not written (rejected); the document is skipped',
        operationId: 'op-1',
        subscriptionId: 'sub-1',
        leaseToken: '10-20',
        reason: 'validation',
        status: 400,
        documentError: 'Operations: invalid operation "op-1": request is required (and 6 more)',
      }),
    ]);
  });

  it('gives up after the deadline when failures persist, then skips writes until the cool-down ends', async () => {
    let calls = 0;
    const { container } = fakeContainer(async () => {
      calls++;
      throw cosmosError(503);
    });
    const { logger, lines } = logCapture();
    const failures = counter();
    const clock = new ManualClock(0);
    const repo = new DeadLettersRepository(container, {
      logger,
      failures,
      retry: { ...fastRetry, clock },
      lateWrites: { clock: new ManualTimers() },
    });
    const started = Date.now();
    expect(await repo.write(invalidOperation())).toMatchObject({ outcome: 'failed', cause: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(calls).toBeGreaterThan(1);
    const before = calls;
    expect(await repo.write(invalidOperation({ id: 'op-2' }))).toMatchObject({ outcome: 'failed', cause: 'circuit-open' });
    expect(calls).toBe(before);
    expect(failures.calls()).toEqual([
      { reason: 'validation', cause: 'timeout' },
      { reason: 'validation', cause: 'circuit-open' },
    ]);
    expect(lines().map((l) => [l.operationId, l.cause, l.leaseToken])).toEqual([
      ['op-1', 'timeout', '10-20'],
      ['op-2', 'circuit-open', '10-20'],
    ]);
    clock.advance(30_000);
    expect(await repo.write(invalidOperation({ id: 'op-3' }))).toMatchObject({ outcome: 'failed', cause: 'timeout' });
    expect(calls).toBeGreaterThan(before);
  });

  it('writes a dead letter given up while Cosmos was unavailable in the background once Cosmos is back, and says so once', async () => {
    let down = true;
    const { container, bodies } = fakeContainer(async () => {
      if (down) throw cosmosError(503);
      return {};
    });
    const { logger, lines } = logCapture();
    const failures = counter();
    const timers = new ManualTimers();
    const late: Array<[string, string]> = [];
    const repo = new DeadLettersRepository(container, {
      logger,
      failures,
      retry: { ...fastRetry, coolDownMs: 0 },
      lateWrites: { clock: timers, backoff: { retries: Infinity, initialDelayMs: 1000, maxDelayMs: 4000, multiplier: 2, jitter: 0 } },
      onLateWrite: (input, result) => late.push([String((input.document as { id: string }).id), result.id]),
    });
    const result = await repo.write(invalidOperation());
    expect(result).toMatchObject({ outcome: 'failed', cause: 'timeout' });
    expect(repo.pendingLateWrites).toBe(1);
    expect(lines()[0]).toMatchObject({
      level: 'error',
      message: 'dead letter not written (timeout); retried in the background until Cosmos takes it; the feed moves on',
    });
    await timers.advance(1000); // still down: tried again, not reported again
    await waitFor(() => timers.scheduled === 1);
    expect(failures.calls()).toHaveLength(1);
    expect(late).toEqual([]);
    down = false;
    await timers.advance(2000);
    await waitFor(() => late.length === 1);
    expect(late).toEqual([['op-1', result.id]]);
    expect(repo.pendingLateWrites).toBe(0);
    expect(bodies[bodies.length - 1]).toMatchObject({ id: result.id, reason: 'validation' });
    expect(lines().filter((l) => l.level === 'error')).toHaveLength(1);
    expect(lines()[lines().length - 1]).toMatchObject({
      level: 'info',
      message: 'dead letter written after Cosmos was back',
      deadLetterId: result.id,
    });
  });

  it('skips, without retrying later, a dead letter Cosmos refuses for good', async () => {
    const { container } = fakeContainer(async () => Promise.reject(cosmosError(413)));
    const repo = new DeadLettersRepository(container, { lateWrites: { clock: new ManualTimers() } });
    expect(await repo.write(invalidOperation())).toMatchObject({ outcome: 'failed', cause: 'rejected' });
    expect(repo.pendingLateWrites).toBe(0);
  });

  it('never throws, whatever the document and the error', async () => {
    const { container } = fakeContainer(async () => ({}));
    const repo = new DeadLettersRepository(container);
    const hostile = {
      toString() {
        throw new Error('no');
      },
    };
    const cyclic: Record<string, unknown> = { id: 'c' };
    cyclic.self = cyclic;
    for (const document of [undefined, null, 'text', [1, 2], cyclic, nested(100_000)]) {
      await expect(repo.write({ container: 'Operations', document, reason: 'processing', error: hostile })).resolves.toMatchObject({
        outcome: 'written',
      });
    }
  });
});

import { randomUUID } from 'node:crypto';
import type { Container } from '@azure/cosmos';
import { ensureContainers } from '../../../src/cosmos';
import { LockLostError, LockNotAcquiredError, SubscriptionLocks, type SubscriptionLockOptions } from '../../../src/locks';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName, waitFor } from '../../helpers/wait-for';

/** Short TTLs through options; the lock document carries its own `ttl`. */
const FAST: SubscriptionLockOptions = {
  ttlSeconds: 2,
  renewMarginMs: 300,
  acquireRetryBaseMs: 10,
  acquireRetryMaxMs: 100,
  acquireTimeoutMs: 20_000,
  renewRetryIntervalMs: 50,
};

describe('subscription locks against the Cosmos emulator', () => {
  let cosmos: TestCosmos;
  let locks: Container;
  const holder = (owner: string, options: SubscriptionLockOptions = {}): SubscriptionLocks =>
    new SubscriptionLocks(locks, { ...FAST, owner, ...options });
  const readLock = async (id: string): Promise<Record<string, unknown> | undefined> => {
    try {
      return (await locks.item(id, id).read<Record<string, unknown>>()).resource ?? undefined;
    } catch {
      return undefined;
    }
  };

  beforeAll(async () => {
    cosmos = await startTestCosmos({ partitions: 2 });
    ({ locks } = await ensureContainers(cosmos.client, uniqueName('locks'), { create: true }));
  });
  afterAll(() => cosmos.close());

  it('ids are lower-cased: the same subscription in another casing is the same lock', async () => {
    const sub = randomUUID().toUpperCase();
    const a = await holder('a').tryAcquire(sub);
    expect(a?.id).toBe(sub.toLowerCase());
    expect(await readLock(sub.toLowerCase())).toMatchObject({ id: sub.toLowerCase(), owner: 'a', ttl: 2 });
    expect(await holder('b').tryAcquire(sub.toLowerCase())).toBeUndefined();
    await a?.release();
    expect(await readLock(sub.toLowerCase())).toBeUndefined();
  });

  it('contention: two holders never run their sections at the same time, and every section runs', async () => {
    const sub = randomUUID();
    const [a, b] = [holder('a'), holder('b')];
    let inside = 0;
    let maxInside = 0;
    const ran: string[] = [];
    const section =
      (who: string, i: number) =>
      async (signal: AbortSignal): Promise<void> => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        await readLock(sub.toLowerCase()); // yield to the other holder while inside
        signal.throwIfAborted();
        ran.push(`${who}${i}`);
        inside--;
      };
    await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => a.withSubscriptionLock(sub, section('a', i))),
      ...Array.from({ length: 5 }, (_, i) => b.withSubscriptionLock(sub, section('b', i))),
    ]);
    expect(maxInside).toBe(1);
    expect(ran.sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'b0', 'b1', 'b2', 'b3', 'b4']);
    expect(await readLock(sub.toLowerCase())).toBeUndefined();
  });

  it("one process's sections on one subscription take turns in memory and share one held lock: no 409s, one create and one delete per run of sections", async () => {
    const sub = randomUUID();
    const a = holder('a', { maxSectionsPerHold: 4, ttlSeconds: 10 }); // no renewal within the test: writes are creates and deletes
    let inside = 0;
    let maxInside = 0;
    const ran: number[] = [];
    const before = cosmos.emu.counters().byContainer[locks.id]?.requests ?? {};
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        a.withSubscriptionLock(sub, async (signal) => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          expect(await readLock(sub)).toMatchObject({ owner: 'a' }); // held, in Cosmos, while inside
          signal.throwIfAborted();
          ran.push(i);
          inside--;
        }),
      ),
    );
    const after = cosmos.emu.counters().byContainer[locks.id]?.requests ?? {};
    expect(maxInside).toBe(1);
    expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]); // in arrival order
    // 10 sections, at most 4 per hold: 3 holds, each one create and one delete (readLock's point reads aside).
    expect((after.write ?? 0) - (before.write ?? 0)).toBe(6);
    expect(await readLock(sub)).toBeUndefined();
  });

  it('a section waiting for its turn gives up at the timeout, and an aborted one at once; the line moves on', async () => {
    const sub = randomUUID();
    const a = holder('a');
    let release!: () => void;
    const first = a.withSubscriptionLock(sub, () => new Promise<void>((r) => (release = r)));
    await waitFor(async () => (await readLock(sub)) !== undefined, {
      timeoutMs: 10_000,
      describe: () => 'the first section to hold the lock',
    });
    const timedOut = await a.withSubscriptionLock(sub, async () => 'ran', { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(LockNotAcquiredError);
    const aborter = new AbortController();
    const aborted = a.withSubscriptionLock(sub, async () => 'ran', { signal: aborter.signal }).catch((e: unknown) => e);
    aborter.abort(new Error('fenced'));
    expect(await aborted).toMatchObject({ message: 'fenced' });
    const third = a.withSubscriptionLock(sub, async () => 'third ran');
    release();
    await first;
    expect(await third).toBe('third ran');
    expect(await readLock(sub)).toBeUndefined();
  });

  it('a lock lost in one section is not handed to the next: the next acquires its own', async () => {
    const sub = randomUUID();
    const a = holder('a');
    const owners: unknown[] = [];
    const lost = a
      .withSubscriptionLock(sub, async (signal) => {
        await locks.item(sub, sub).delete();
        await waitFor(() => signal.aborted, { timeoutMs: 10_000, describe: () => 'the lock signal to abort' });
        signal.throwIfAborted();
      })
      .catch((e: unknown) => e);
    const next = a.withSubscriptionLock(sub, async (signal) => {
      owners.push((await readLock(sub))?.owner);
      return signal.aborted;
    });
    expect(await lost).toBeInstanceOf(LockLostError);
    expect(await next).toBe(false);
    expect(owners).toEqual(['a']);
    expect(await readLock(sub)).toBeUndefined();
  });

  it('a holder that died (no renewals, no release) is freed by the TTL', async () => {
    const sub = randomUUID();
    await locks.items.create({ id: sub, owner: 'crashed', ttl: 2 });
    const b = holder('b');
    expect(await b.tryAcquire(sub)).toBeUndefined();
    const started = Date.now();
    const handle = await b.acquire(sub, { timeoutMs: 15_000 });
    expect(Date.now() - started).toBeGreaterThan(500);
    expect(await readLock(sub)).toMatchObject({ owner: 'b' });
    await handle.release();
  });

  it('acquire gives up after its timeout with a retriable LockNotAcquiredError', async () => {
    const sub = randomUUID();
    const a = await holder('a').acquire(sub);
    const err = await holder('b')
      .acquire(sub, { timeoutMs: 150 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockNotAcquiredError);
    expect(err).toMatchObject({ retriable: true, lockId: sub, timeoutMs: 150 });
    await a.release();
  });

  it('a section longer than the TTL keeps the lock by renewing it', async () => {
    const sub = randomUUID();
    // ttl 3 s, renewing ~1 s before the estimate: 2 s of slack for a loaded machine.
    const a = holder('a', { ttlSeconds: 3, renewMarginMs: 1000 });
    const b = holder('b');
    const etags = new Set<string>();
    const result = await a.withSubscriptionLock(sub, async (signal) => {
      const started = Date.now();
      // Hold well past the 3 s TTL, watching the renewals replace the document.
      await waitFor(
        async () => {
          const doc = await readLock(sub);
          if (typeof doc?._etag === 'string') etags.add(doc._etag);
          return Date.now() - started > 4500 && etags.size >= 4;
        },
        { timeoutMs: 20_000, intervalMs: 50, describe: () => `${etags.size} distinct etags seen` },
      );
      expect(await b.tryAcquire(sub)).toBeUndefined();
      expect(signal.aborted).toBe(false);
      return 'done';
    });
    expect(result).toBe('done');
    expect(await readLock(sub)).toBeUndefined();
  });

  it.each([
    ['stolen', async (c: Container, id: string): Promise<void> => void (await c.items.upsert({ id, owner: 'thief', ttl: 30 }))],
    ['gone', async (c: Container, id: string): Promise<void> => void (await c.item(id, id).delete())],
  ] as const)('the signal fires when the lock document is %s, and the section fails with LockLostError', async (reason, interfere) => {
    const sub = randomUUID();
    const a = holder('a');
    let seenReason: unknown;
    const err = await a
      .withSubscriptionLock(sub, async (signal) => {
        await interfere(locks, sub);
        await waitFor(() => signal.aborted, { timeoutMs: 10_000, describe: () => 'the lock signal to abort' });
        seenReason = signal.reason;
        signal.throwIfAborted();
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockLostError);
    expect(err).toMatchObject({ reason, lockId: sub, retriable: true });
    expect(seenReason).toBe(err);
    // Release after a loss leaves the new holder's document alone.
    expect(await readLock(sub)).toEqual(reason === 'stolen' ? expect.objectContaining({ owner: 'thief' }) : undefined);
  });

  it('a section that ignores the signal still reports the loss', async () => {
    const sub = randomUUID();
    const err = await holder('a')
      .withSubscriptionLock(sub, async (signal) => {
        await locks.item(sub, sub).delete();
        await waitFor(() => signal.aborted, { timeoutMs: 10_000 });
        return 'finished anyway';
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockLostError);
  });

  it('a failing section releases the lock and rethrows its own error', async () => {
    const sub = randomUUID();
    const boom = new Error('section failed');
    expect(
      await holder('a')
        .withSubscriptionLock(sub, () => Promise.reject(boom))
        .catch((e: unknown) => e),
    ).toBe(boom);
    const again = await holder('b').tryAcquire(sub);
    expect(again).toBeDefined();
    await again?.release();
  });

  it('release is idempotent and ignores a lock already taken over', async () => {
    const sub = randomUUID();
    const handle = await holder('a').acquire(sub);
    await locks.items.upsert({ id: sub, owner: 'other', ttl: 30 });
    await handle.release();
    await handle.release();
    expect(await readLock(sub)).toMatchObject({ owner: 'other' });
  });
});

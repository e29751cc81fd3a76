import {
  ConcurrentUpdateError,
  ensureContainers,
  InvalidDocumentError,
  OperationsRepository,
  type OpstreamContainers,
} from '../../../src/cosmos';
import { ARM_ERROR_LIMITS } from '../../../src/domain/bounded-arm-error';
import { effectivePartitionKey } from '../../../src/changefeed/util/epk';
import { ManualClock } from '../../../src/util/clock';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';
import { newSubscription, operation } from './documents';

describe('Operations repository', () => {
  let cosmos: TestCosmos;
  let containers: OpstreamContainers;
  let clock: ManualClock;
  let ops: OperationsRepository;

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    containers = await ensureContainers(cosmos.client, uniqueName('ops'), { create: true });
  });
  afterAll(() => cosmos.close());
  beforeEach(() => {
    clock = new ManualClock(Date.parse('2024-03-13T16:00:00Z'));
    ops = new OperationsRepository(containers.operations, { clock });
  });

  it('creates and reads typed documents; a missing one is undefined', async () => {
    const s = newSubscription();
    const op = operation(s.pk, s.clusterArmId('c1'));
    const created = await ops.create(op);
    expect(created._etag).toEqual(expect.any(String));
    expect(created._ts).toEqual(expect.any(Number));
    const read = await ops.read(s.pk, op.id);
    expect(read).toMatchObject(op);
    expect(await ops.read(s.pk, 'nope')).toBeUndefined();
  });

  it('a stored document that fails validation is a typed error naming document and field', async () => {
    const s = newSubscription();
    const raw = { ...operation(s.pk, s.clusterArmId('c1')), status: 'Runing' };
    await containers.operations.items.create(raw);
    const err = await ops.read(s.pk, raw.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidDocumentError);
    expect(err).toMatchObject({ container: 'Operations', documentId: raw.id, field: 'status', retriable: false });
    expect((err as InvalidDocumentError).document).toMatchObject({ status: 'Runing' });
    expect((err as Error).message).toContain(`Operations: invalid operation "${raw.id}": status must be one of`);
  });

  it('refuses to write an invalid document (and writes nothing)', async () => {
    const s = newSubscription();
    const bad = { ...operation(s.pk, s.clusterArmId('c1')), externalId: '/not/an/arm/id' };
    const err = await ops.create(bad).catch((e: unknown) => e);
    expect(err).toMatchObject({ field: 'externalId' });
    expect(await ops.read(s.pk, bad.id)).toBeUndefined();
  });

  describe('setStatus', () => {
    it('writes only when status or error change, stamping lastTransitionTime', async () => {
      const s = newSubscription();
      const op = await ops.create(operation(s.pk, s.clusterArmId('c1')));
      clock.advance(5000);
      const moved = await ops.setStatus(s.pk, op.id, { status: 'Provisioning' });
      expect(moved).toMatchObject({
        outcome: 'updated',
        document: { status: 'Provisioning', lastTransitionTime: '2024-03-13T16:00:05.000Z' },
      });
      clock.advance(5000);
      const again = await ops.setStatus(s.pk, op.id, { status: 'Provisioning' });
      expect(again.outcome).toBe('unchanged');
      expect(again.outcome === 'unchanged' && again.document._etag).toBe(moved.outcome === 'updated' && moved.document._etag);

      const failed = await ops.setStatus(s.pk, op.id, { status: 'Provisioning', error: { code: 'Transient', message: 'x' } });
      expect(failed).toMatchObject({
        outcome: 'updated',
        document: { error: { code: 'Transient' }, lastTransitionTime: '2024-03-13T16:00:10.000Z' },
      });
      const cleared = await ops.setStatus(s.pk, op.id, { status: 'Provisioning', error: null });
      expect(cleared.outcome).toBe('updated');
      expect((await ops.read(s.pk, op.id))?.error).toBeUndefined();
    });

    it('an error is stored cut to its bounds (a Clusters Service answer may say far more than a document may hold)', async () => {
      const s = newSubscription();
      const op = await ops.create(operation(s.pk, s.clusterArmId('c1'), 'Provisioning'));
      const details = Array.from({ length: 1000 }, (_, i) => ({
        code: 'InternalServerError',
        message: `check ${i}: ${'d'.repeat(100_000)}`,
      }));
      const result = await ops.setStatus(s.pk, op.id, {
        status: 'Failed',
        error: { code: 'MultipleErrorsOccurred', message: 'm'.repeat(3_000_000), details },
      });
      expect(result.outcome).toBe('updated');
      const stored = (await ops.read(s.pk, op.id))?.error;
      expect(stored?.message).toBe(`${'m'.repeat(ARM_ERROR_LIMITS.messageChars)}…[truncated: 3000000 characters]`);
      expect(stored?.details).toHaveLength(ARM_ERROR_LIMITS.details + 1);
      expect(stored?.details?.[ARM_ERROR_LIMITS.details]).toEqual({
        code: 'Truncated',
        message: `[truncated: ${1000 - ARM_ERROR_LIMITS.details} more detail(s)]`,
      });
      expect(JSON.stringify(stored).length).toBeLessThan(64 * 1024);
    });

    it('a terminal operation never moves again', async () => {
      const s = newSubscription();
      const op = await ops.create(operation(s.pk, s.clusterArmId('c1'), 'Provisioning'));
      await ops.setStatus(s.pk, op.id, { status: 'Failed', error: { code: 'OCM3001', message: 'quota' } });
      const late = await ops.setStatus(s.pk, op.id, { status: 'Succeeded', error: null });
      expect(late).toMatchObject({ outcome: 'unchanged', document: { status: 'Failed', error: { code: 'OCM3001' } } });
    });

    it('not-found for a missing operation', async () => {
      expect(await ops.setStatus(newSubscription().pk, 'missing', { status: 'Succeeded' })).toEqual({ outcome: 'not-found' });
    });
  });

  describe('update from a document read earlier (startFrom)', () => {
    const pointReads = (): number => cosmos.emu.counters().pointRead;

    it('writes without reading again when nothing changed since', async () => {
      const s = newSubscription();
      const op = await ops.create(operation(s.pk, s.clusterArmId('c1')));
      const before = pointReads();
      const moved = await ops.setStatus(s.pk, op.id, { status: 'Provisioning' }, { startFrom: op });
      expect(moved).toMatchObject({ outcome: 'updated', document: { status: 'Provisioning' } });
      expect(pointReads() - before).toBe(0);
    });

    it('a document changed since is read again (412) and the change re-applied to it', async () => {
      const s = newSubscription();
      const op = await ops.create(operation(s.pk, s.clusterArmId('c1')));
      await ops.setInternalId(s.pk, op.id, '/api/aro_hcp/v1alpha1/clusters/abc');
      const moved = await ops.setStatus(s.pk, op.id, { status: 'Provisioning' }, { startFrom: op, maxAttempts: 1 });
      expect(moved).toMatchObject({
        outcome: 'updated',
        document: { status: 'Provisioning', internalId: '/api/aro_hcp/v1alpha1/clusters/abc' },
      });
    });

    it('decides to write nothing only on a fresh read, never on the stale copy', async () => {
      const s = newSubscription();
      const op = await ops.create(operation(s.pk, s.clusterArmId('c1')));
      const stale = { ...op, status: 'Succeeded' as const };
      // The stale copy says terminal (no write); the stored one is not: it must still move.
      const moved = await ops.setStatus(s.pk, op.id, { status: 'Provisioning' }, { startFrom: stale });
      expect(moved).toMatchObject({ outcome: 'updated', document: { status: 'Provisioning' } });
      const before = pointReads();
      expect(await ops.setStatus(s.pk, op.id, { status: 'Provisioning' }, { startFrom: op })).toMatchObject({ outcome: 'unchanged' });
      expect(pointReads() - before).toBe(1);
    });
  });

  it('concurrent read-modify-writes all land (412 → re-read, re-apply)', async () => {
    const s = newSubscription();
    const op = await ops.create(
      operation(s.pk, s.clusterArmId('c1'), 'Provisioning', { error: { code: 'Multi', message: 'm', details: [] } }),
    );
    const writers = Array.from({ length: 6 }, (_, i) =>
      ops.update(
        s.pk,
        op.id,
        (cur) => ({
          ...cur,
          error: { code: 'Multi', message: 'm', details: [...(cur.error?.details ?? []), { code: `E${i}`, message: String(i) }] },
        }),
        { maxAttempts: 20 },
      ),
    );
    const results = await Promise.all(writers);
    expect(results.every((r) => r.outcome === 'updated')).toBe(true);
    const codes = (await ops.read(s.pk, op.id))?.error?.details?.map((d) => d.code).sort();
    expect(codes).toEqual(['E0', 'E1', 'E2', 'E3', 'E4', 'E5']);
  });

  it('gives up with a retriable ConcurrentUpdateError when every attempt loses the race', async () => {
    const s = newSubscription();
    const op = await ops.create(operation(s.pk, s.clusterArmId('c1')));
    // A container whose replace is always preceded by someone else's write of the same document.
    let competing = 0;
    const real = containers.operations;
    const racing = new Proxy(real, {
      get(target, prop) {
        if (prop !== 'item') return Reflect.get(target, prop, target) as unknown;
        return (id: string, pk: string) => {
          const item = target.item(id, pk);
          return new Proxy(item, {
            get(t, p) {
              if (p === 'replace') {
                return async (body: unknown, options: unknown) => {
                  const { resource } = await t.read();
                  await target.items.upsert({ ...resource, clientId: `other-${++competing}` });
                  return t.replace(body as never, options as never);
                };
              }
              const value = Reflect.get(t, p, t) as unknown;
              return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
            },
          });
        };
      },
    });
    const repo = new OperationsRepository(racing);
    let calls = 0;
    const err = await repo
      .update(
        s.pk,
        op.id,
        (cur) => {
          calls++;
          return { ...cur, tenantId: `mine-${calls}` };
        },
        { maxAttempts: 3 },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConcurrentUpdateError);
    expect(err).toMatchObject({ retriable: true, context: { attempts: 3, documentId: op.id } });
    expect([calls, competing]).toEqual([3, 3]);
    expect((await ops.read(s.pk, op.id))?.clientId).toBe('other-3');
  });

  it('clears the notification URI and records the internal id', async () => {
    const s = newSubscription();
    const op = await ops.create(operation(s.pk, s.clusterArmId('c1'), 'Accepted', { notificationUri: 'https://arm.example/notify/1' }));
    await ops.setInternalId(s.pk, op.id, '/api/aro_hcp/v1alpha1/clusters/abc');
    expect(await ops.clearNotificationUri(s.pk, op.id)).toMatchObject({ outcome: 'updated' });
    expect(await ops.clearNotificationUri(s.pk, op.id)).toMatchObject({ outcome: 'unchanged' });
    const read = await ops.read(s.pk, op.id);
    expect(read?.notificationUri).toBeUndefined();
    expect(read?.internalId).toBe('/api/aro_hcp/v1alpha1/clusters/abc');
  });

  describe('the record of an ARM notification delivery', () => {
    const at = (ms: number): string => new Date(ms).toISOString();

    it('failed attempts are recorded while the notification is due; the delivery rides the clearing write and keeps counting', async () => {
      const s = newSubscription();
      const op = await ops.create(
        operation(s.pk, s.clusterArmId('c1'), 'Succeeded', {
          notificationUri: 'https://arm.example/notify/3',
          notificationClaim: { owner: 'a#1', until: at(clock.now() + 30_000) },
        }),
      );
      const failing = {
        state: 'failing',
        attempts: 1,
        at: at(clock.now()),
        httpStatus: 503,
        answer: 'https://arm.example answered HTTP 503',
        by: 'a#1',
      } as const;
      expect(await ops.recordNotificationAttempt(s.pk, op.id, failing, 'a#1')).toMatchObject({
        outcome: 'updated',
        document: { notificationDelivery: failing },
      });
      // Another instance's claim is live: it delivers, this one records nothing.
      expect(await ops.recordNotificationAttempt(s.pk, op.id, { ...failing, attempts: 2 }, 'b#2')).toMatchObject({ outcome: 'unchanged' });
      // A delivery counted from a copy read before the failure still counts it.
      const delivered = { state: 'delivered', attempts: 1, at: at(clock.now()), httpStatus: 200, by: 'a#1' } as const;
      const cleared = await ops.clearNotificationUri(s.pk, op.id, delivered);
      expect(cleared).toMatchObject({ outcome: 'updated', document: { notificationDelivery: { ...delivered, attempts: 2 } } });
      const read = await ops.read(s.pk, op.id);
      expect([read?.notificationUri, read?.notificationClaim]).toEqual([undefined, undefined]);
      // Nothing is due any more: a late failure record and a second clear write nothing.
      expect(await ops.recordNotificationAttempt(s.pk, op.id, { ...failing, attempts: 3 }, 'a#1')).toMatchObject({ outcome: 'unchanged' });
      expect(await ops.clearNotificationUri(s.pk, op.id, { ...delivered, attempts: 9 })).toMatchObject({ outcome: 'unchanged' });
      expect((await ops.read(s.pk, op.id))?.notificationDelivery).toEqual({ ...delivered, attempts: 2 });
    });
  });

  describe('the claim on an ARM notification', () => {
    const at = (ms: number): string => new Date(ms).toISOString();

    it('is taken by the write that ends an operation with a notificationUri, and by no other status write', async () => {
      const s = newSubscription();
      const op = await ops.create(operation(s.pk, s.clusterArmId('c1'), 'Accepted', { notificationUri: 'https://arm.example/notify/1' }));
      const claim = { owner: 'a#1', until: at(clock.now() + 30_000) };
      const moving = await ops.setStatus(s.pk, op.id, { status: 'Provisioning', notificationClaim: claim });
      expect(moving).toMatchObject({ outcome: 'updated' });
      expect((await ops.read(s.pk, op.id))?.notificationClaim).toBeUndefined();
      await ops.setStatus(s.pk, op.id, { status: 'Succeeded', notificationClaim: claim });
      expect((await ops.read(s.pk, op.id))?.notificationClaim).toEqual(claim);

      const silent = await ops.create(operation(s.pk, s.clusterArmId('c2')));
      await ops.setStatus(s.pk, silent.id, { status: 'Succeeded', notificationClaim: claim });
      expect((await ops.read(s.pk, silent.id))?.notificationClaim).toBeUndefined();
    });

    it("another instance's live claim is left alone; a lapsed one is taken over; clearing removes both", async () => {
      const s = newSubscription();
      const now = clock.now();
      const op = await ops.create(
        operation(s.pk, s.clusterArmId('c1'), 'Succeeded', {
          notificationUri: 'https://arm.example/notify/2',
          notificationClaim: { owner: 'a#1', until: at(now + 5_000) },
        }),
      );
      const mine = { owner: 'b#2', until: at(now + 30_000) };
      const refused = await ops.claimNotification(s.pk, op.id, mine, now, { startFrom: op });
      expect(refused).toMatchObject({ outcome: 'unchanged', document: { notificationClaim: { owner: 'a#1' } } });
      // Its holder renews its own claim whenever it likes.
      expect(await ops.claimNotification(s.pk, op.id, { owner: 'a#1', until: at(now + 9_000) }, now)).toMatchObject({ outcome: 'updated' });
      // Lapsed at `now + 9 s`: the next instance takes it.
      expect(await ops.claimNotification(s.pk, op.id, mine, now + 9_000)).toMatchObject({
        outcome: 'updated',
        document: { notificationClaim: mine },
      });
      expect(await ops.clearNotificationUri(s.pk, op.id)).toMatchObject({ outcome: 'updated' });
      const read = await ops.read(s.pk, op.id);
      expect([read?.notificationUri, read?.notificationClaim]).toEqual([undefined, undefined]);
      // Nothing left to claim.
      expect(await ops.claimNotification(s.pk, op.id, mine, now)).toMatchObject({ outcome: 'unchanged' });
    });

    it('of two instances claiming from the same read, one wins', async () => {
      const s = newSubscription();
      const now = clock.now();
      const op = await ops.create(operation(s.pk, s.clusterArmId('c1'), 'Succeeded', { notificationUri: 'https://arm.example/notify/3' }));
      const results = await Promise.all(
        ['a#1', 'b#2'].map((owner) => ops.claimNotification(s.pk, op.id, { owner, until: at(now + 30_000) }, now, { startFrom: op })),
      );
      expect(results.map((r) => r.outcome).sort()).toEqual(['unchanged', 'updated']);
    });
  });

  describe('listNonTerminal', () => {
    let database: OpstreamContainers;
    let repo: OperationsRepository;
    const subs = [newSubscription(), newSubscription(), newSubscription()];
    const active: string[] = [];
    /** Terminal, with the ARM notification still due: what a relist finds besides the active ones. */
    const notifying: string[] = [];
    let invalidId: string;

    beforeAll(async () => {
      database = await ensureContainers(cosmos.client, uniqueName('list'), { create: true });
      repo = new OperationsRepository(database.operations);
      const statuses = ['Accepted', 'Provisioning', 'Updating', 'Deleting', 'Succeeded', 'Failed', 'Canceled'] as const;
      for (const s of subs) {
        for (const status of statuses) {
          const op = await repo.create(operation(s.pk, s.clusterArmId(`c-${status}`), status));
          if (!['Succeeded', 'Failed', 'Canceled'].includes(status)) active.push(op.id);
        }
        const due = await repo.create(
          operation(s.pk, s.clusterArmId('c-notify'), 'Succeeded', { notificationUri: 'https://arm.example/notify/1' }),
        );
        notifying.push(due.id);
      }
      const raw = { ...operation(subs[0]!.pk, subs[0]!.clusterArmId('broken'), 'Accepted'), startTime: 'yesterday' };
      invalidId = raw.id;
      await database.operations.items.create(raw);
    });

    it('unfiltered: every non-terminal operation; an invalid one is reported apart, not thrown', async () => {
      const { items, invalid } = await repo.listNonTerminal();
      expect(items.map((o) => o.id).sort()).toEqual([...active].sort());
      expect(invalid.map((e) => [e.documentId, e.field])).toEqual([[invalidId, 'startTime']]);
    });

    it('by partition keys (one, several, none)', async () => {
      const one = await repo.listNonTerminal({ partitionKeys: [subs[1]!.pk] });
      expect(one.items).toHaveLength(4);
      expect(new Set(one.items.map((o) => o.partitionKey))).toEqual(new Set([subs[1]!.pk]));
      const two = await repo.listNonTerminal({ partitionKeys: [subs[0]!.pk, subs[2]!.pk] });
      expect(two.items).toHaveLength(8);
      expect(two.invalid).toHaveLength(1);
      expect(await repo.listNonTerminal({ partitionKeys: [] })).toEqual({ items: [], invalid: [] });
    });

    it('by feed range: two adjacent ranges split the result at the boundary', async () => {
      // The boundary is the highest EPK of the three subscriptions: that one falls in the upper range.
      const epks = subs.map((s) => effectivePartitionKey(s.pk));
      const boundary = [...epks].sort()[2]!;
      const low = await repo.listNonTerminal({ feedRange: { min: '', max: boundary } });
      const high = await repo.listNonTerminal({ feedRange: { min: boundary, max: 'FF' } });
      expect([low.items.length, high.items.length]).toEqual([8, 4]);
      expect(high.items.every((o) => effectivePartitionKey(o.partitionKey) === boundary)).toBe(true);
      expect([...low.items, ...high.items].map((o) => o.id).sort()).toEqual([...active].sort());
      const invalidInLow = effectivePartitionKey(subs[0]!.pk) < boundary;
      expect([low.invalid.length, high.invalid.length]).toEqual(invalidInLow ? [1, 0] : [0, 1]);
    });

    it('pagesNeedingWork: a feed range page by page, the active ones then those whose notification is due, nothing outside it', async () => {
      const epks = subs.map((s) => effectivePartitionKey(s.pk));
      const boundary = [...epks].sort()[2]!;
      const read = async (range: { min: string; max: string }): Promise<{ ids: string[]; invalid: number; pages: number[] }> => {
        const out = { ids: [] as string[], invalid: 0, pages: [] as number[] };
        for await (const page of repo.pagesNeedingWork(range, { pageSize: 3 })) {
          out.pages.push(page.items.length + page.invalid.length);
          out.ids.push(...page.items.map((o) => o.id));
          out.invalid += page.invalid.length;
        }
        return out;
      };
      const low = await read({ min: '', max: boundary });
      const high = await read({ min: boundary, max: 'FF' });
      expect(Math.max(...low.pages, ...high.pages)).toBeLessThanOrEqual(3);
      expect([...low.ids, ...high.ids].sort()).toEqual([...active, ...notifying].sort());
      expect(low.invalid + high.invalid).toBe(1);
      // The active ones come first, and the high range holds the one subscription at the boundary only.
      const firstDue = high.ids.findIndex((id) => notifying.includes(id));
      expect(high.ids.slice(firstDue).every((id) => notifying.includes(id))).toBe(true);
      expect(high.ids).toHaveLength(5);
    });

    it('pagesNeedingWork stops reading where its caller stops: the next page is read only when asked for', async () => {
      cosmos.emu.resetCounters();
      const pages = repo.pagesNeedingWork({ min: '', max: 'FF' }, { pageSize: 2 });
      const first = await pages.next();
      expect(first.done).toBe(false);
      const queriesForOnePage = cosmos.emu.counters().byContainer.Operations?.requests.query ?? 0;
      await pages.return(undefined);
      let rest = 0;
      for await (const page of repo.pagesNeedingWork({ min: '', max: 'FF' }, { pageSize: 2 }))
        rest += page.items.length + page.invalid.length;
      expect(rest).toBe(active.length + notifying.length + 1);
      expect(queriesForOnePage).toBe(1);
    });
  });
});

import { randomUUID } from 'crypto';
import { FrontendSimulator } from '@opstream/frontend-simulator';
import type { Opstream } from '../../src/app/opstream-app';
import { readDocument, startNotificationGate, type NotificationGate } from '../helpers/guarantees';
import { Harness, startHarness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

// Short, so the first test holds a delivery for longer than the claim: the deliverer must keep renewing it.
const CLAIM_MS = 3_000;
const WHOLE_RANGE = { min: '', max: 'FF' };

/**
 * Guarantee: ARM is told once even when two live instances handle one terminal operation, as
 * happens while a lease moves (the new owner relists the range before the old owner's renewal
 * tells it the lease is gone). The instance that ended the operation holds a claim on its
 * notification, renewed while its delivery is in flight however long that takes; the other leaves
 * it alone until the claim lapses, which only a dead deliverer's does.
 */
describe('guarantees: one ARM notification while two instances handle the operation', () => {
  let h: Harness;
  let gate: NotificationGate;
  const tenant = randomUUID();
  /** Tag → notifications that reached the gate. */
  const gateCalls = new Map<string, number>();
  /** Tag → a promise the gate waits on before forwarding the first notification. */
  const holds = new Map<string, Promise<void>>();

  beforeAll(async () => {
    h = await startHarness({ settings: { 'pipeline.notificationClaimMs': CLAIM_MS } });
    await h.startInstance('second');
    gate = await startNotificationGate(h.receiver.url, async (tag) => {
      gateCalls.set(tag, (gateCalls.get(tag) ?? 0) + 1);
      const hold = holds.get(tag);
      holds.delete(tag);
      if (hold) await hold;
    });
  });
  afterAll(async () => {
    await gate.close();
    await h.close();
  });

  const instanceNamed = (claimOwner: string): Opstream => {
    const found = h.instances.find((app) => claimOwner.startsWith(`${app.instanceName}#`));
    if (!found) throw new Error(`no instance holds the claim ${claimOwner}`);
    return found;
  };

  it('the other instance relists the operation while a delivery outlasting the claim is in flight: it waits, and ARM gets one notification', async () => {
    const tag = randomUUID();
    let release!: () => void;
    holds.set(tag, new Promise<void>((resolve) => (release = resolve)));
    const frontend = new FrontendSimulator({ database: h.database, notificationBaseUrl: gate.urlFor(tag) });
    const sub = randomUUID();
    await frontend.registerSubscription(sub, tenant);
    const op = await frontend.createCluster(sub, 'rg-claim', `claim-${tag.slice(0, 6)}`);

    // The notification is on its way (held at the gate): the instance that ended the operation claimed it.
    await waitFor(() => gateCalls.get(tag) === 1, { timeoutMs: 60_000, describe: () => 'the notification to reach the gate' });
    const doc = await readDocument(h, 'Operations', op.operationId, op.partitionKey);
    const claim = doc?.notificationClaim as { owner: string; until: string } | undefined;
    expect(doc?.status).toBe('Succeeded');
    expect(claim).toBeDefined();
    const deliverer = instanceNamed(claim!.owner);
    const other = h.instances.find((app) => app !== deliverer)!;

    // Held past the first claim's end: the deliverer has renewed it (a lapse would let the other deliver too).
    const firstUntil = Date.parse(claim!.until);
    await waitFor(
      async () => {
        const now = (await readDocument(h, 'Operations', op.operationId, op.partitionKey))?.notificationClaim as
          { owner: string; until: string } | undefined;
        return Date.now() > firstUntil && now?.owner === claim!.owner && Date.parse(now.until) > Date.now();
      },
      { timeoutMs: 30_000, describe: () => 'the deliverer to keep its claim alive past its first end' },
    );

    // The other instance takes the range over, as a new lease owner does, and finds the operation.
    expect(await other.pipeline.relist('taken-over', WHOLE_RANGE, 'test: lease taken over')).toBeGreaterThanOrEqual(1);
    await waitFor(() => other.pipeline.scheduled().some((e) => e.id === op.operationId && !e.running && e.dueInMs > 0), {
      timeoutMs: 30_000,
      describe: () => `the other instance to park the operation until the claim lapses: ${JSON.stringify(other.pipeline.scheduled())}`,
    });
    expect(gateCalls.get(tag)).toBe(1);

    release();
    await h.receiver.waitForNotification(op.operationId, 30_000);
    await waitFor(async () => (await readDocument(h, 'Operations', op.operationId, op.partitionKey))?.notificationUri === undefined, {
      timeoutMs: 30_000,
      describe: () => 'notificationUri to be cleared',
    });
    await waitFor(() => h.instances.every((app) => !app.pipeline.scheduled().some((e) => e.id === op.operationId)), {
      timeoutMs: 30_000,
      describe: () => 'the operation to leave every scheduler',
    });
    const cleared = await readDocument(h, 'Operations', op.operationId, op.partitionKey);
    expect(cleared?.notificationClaim).toBeUndefined();
    expect(gateCalls.get(tag)).toBe(1);
    expect(h.receiver.countFor(op.operationId)).toBe(1);
  });

  it('the instance that claimed a notification died before delivering it: another delivers it once the claim lapses', async () => {
    // A finished operation, written back as a crashed instance leaves it: terminal, URI set, claim held.
    const frontend = new FrontendSimulator({ database: h.database });
    const sub = randomUUID();
    await frontend.registerSubscription(sub, tenant);
    const done = await frontend.createCluster(sub, 'rg-claim', `lapse-${sub.slice(0, 6)}`);
    await waitFor(async () => (await readDocument(h, 'Operations', done.operationId, done.partitionKey))?.status === 'Succeeded', {
      timeoutMs: 60_000,
      describe: () => 'the create to succeed',
    });
    const finished = (await readDocument(h, 'Operations', done.operationId, done.partitionKey))!;
    const id = randomUUID();
    const until = Date.now() + CLAIM_MS;
    const orphan = {
      ...Object.fromEntries(Object.entries(finished).filter(([k]) => !k.startsWith('_'))),
      id,
      operationId: String(finished.operationId).replace(done.operationId, id),
      notificationUri: `${h.receiver.url}/notify/${id}`,
      notificationClaim: { owner: 'crashed-instance#00000000', until: new Date(until).toISOString() },
    };
    await h.database.container('Operations').items.create(orphan);

    const n = await h.receiver.waitForNotification(id, 30_000);
    expect(n.at).toBeGreaterThanOrEqual(until);
    await waitFor(async () => (await readDocument(h, 'Operations', id, done.partitionKey))?.notificationUri === undefined, {
      timeoutMs: 30_000,
      describe: () => 'notificationUri to be cleared',
    });
    await waitFor(() => h.instances.every((app) => !app.pipeline.scheduled().some((e) => e.id === id)), {
      timeoutMs: 30_000,
      describe: () => 'the operation to leave every scheduler',
    });
    expect(h.receiver.countFor(id)).toBe(1);
  });
});

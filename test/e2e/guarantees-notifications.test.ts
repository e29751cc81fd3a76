import { randomUUID } from 'crypto';
import type { FaultRule } from '@opstream/cosmos-emulator/faults';
import { FrontendSimulator } from '@opstream/frontend-simulator';
import { readDocument, startNotificationGate, type NotificationGate } from '../helpers/guarantees';
import { Harness, startHarness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';

/**
 * Guarantee: ARM is told once. The write that clears `notificationUri` after a delivery fails
 * (Cosmos answers 503, or drops the connection). The fault is armed by the ARM endpoint itself
 * when the notification arrives — so it is in place before opstream learns of the delivery — and
 * matches only that Operation's document writes, so the clear is the write it hits.
 */
describe('guarantees: one ARM notification per operation', () => {
  let h: Harness;
  let gate: NotificationGate;
  const tenant = randomUUID();
  /** Tag → the Cosmos fault to arm on its first notification. */
  const armOnNotify = new Map<string, FaultRule>();
  /** Tag → notifications that reached the gate. */
  const gateCalls = new Map<string, number>();

  beforeAll(async () => {
    h = await startHarness();
    gate = await startNotificationGate(h.receiver.url, (tag, operationId) => {
      gateCalls.set(tag, (gateCalls.get(tag) ?? 0) + 1);
      const rule = armOnNotify.get(tag);
      if (!rule) return;
      armOnNotify.delete(tag);
      h.cosmos.emu.setFaults({ ...rule, method: 'PUT', kinds: ['write'], path: `/colls/Operations/docs/${operationId}$` });
    });
  });
  afterAll(async () => {
    await gate.close();
    await h.close();
  });
  afterEach(() => h.cosmos.emu.clearFaults());

  it.each([
    ['one 503', { unavailableRate: 1, count: 1 }, 'unavailable'],
    // More failures than the clear's in-place retries: the handling fails and runs again.
    ['eight 503s in a row', { unavailableRate: 1, count: 8 }, 'unavailable'],
    ['a dropped connection', { dropRate: 1, count: 1 }, 'dropped'],
  ] as const)(
    '%s on the write that clears notificationUri after the ARM notification: ARM gets exactly one notification',
    async (_what, fault, counter) => {
      const tag = randomUUID();
      armOnNotify.set(tag, fault);
      const frontend = new FrontendSimulator({ database: h.database, notificationBaseUrl: gate.urlFor(tag) });
      const sub = randomUUID();
      await frontend.registerSubscription(sub, tenant);
      const faultsBefore = h.cosmos.emu.counters()[counter];
      const op = await frontend.createCluster(sub, 'rg-notify', `notify-${tag.slice(0, 6)}`);
      const n = await h.receiver.waitForNotification(op.operationId, 60_000);
      expect((n.body as { status: string }).status).toBe('Succeeded');

      // The clear went through in the end, and the operation is no longer handled anywhere.
      await waitFor(async () => (await readDocument(h, 'Operations', op.operationId, op.partitionKey))?.notificationUri === undefined, {
        timeoutMs: 30_000,
        describe: () => 'notificationUri to be cleared',
      });
      await waitFor(() => h.instances.every((app) => !app.pipeline.scheduled().some((e) => e.id === op.operationId)), {
        timeoutMs: 30_000,
        describe: () => 'the operation to leave every scheduler',
      });
      // The fault was armed by the notification and hit the clear as many times as asked.
      expect(armOnNotify.has(tag)).toBe(false);
      expect(h.cosmos.emu.counters()[counter] - faultsBefore).toBe(fault.count);
      expect(gateCalls.get(tag)).toBe(1);
      expect(h.receiver.countFor(op.operationId)).toBe(1);
    },
  );
});

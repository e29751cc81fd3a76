import { ServiceBusError } from '@azure/service-bus';
import { waitFor } from '../../helpers/wait-for';
import { Harness, startHarness } from './helpers';

describe('service bus emulator: settlement, locks, TTL, scheduling, deferral', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('abandon adds one to the delivery count; max delivery count dead-letters with MaxDeliveryCountExceeded', async () => {
    await h.client.createSender('orders').sendMessages({ body: 'poison', messageId: 'p1' });
    const r = h.client.createReceiver('orders');
    for (let i = 0; i < 3; i++) {
      const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
      expect(m.deliveryCount).toBe(i);
      await r.abandonMessage(m);
    }
    expect(await r.receiveMessages(1, { maxWaitTimeInMs: 100 })).toEqual([]);
    const dlq = h.client.createReceiver('orders', { subQueueType: 'deadLetter' });
    const [d] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(d.messageId).toBe('p1');
    expect(d.deadLetterReason).toBe('MaxDeliveryCountExceeded');
    expect(d.deadLetterErrorDescription).toMatch(/3 delivery attempts/);
    expect(d.deadLetterSource).toBe('orders');
    await dlq.completeMessage(d);
    await r.close();
    await dlq.close();
  });

  it('dead-letters with a reason and description', async () => {
    await h.client.createSender('orders').sendMessages({ body: 'bad', messageId: 'dl1' });
    const r = h.client.createReceiver('orders');
    const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await r.deadLetterMessage(m, { deadLetterReason: 'Invalid', deadLetterErrorDescription: 'field x is missing' });
    const dlq = h.client.createReceiver('orders', { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const [d] = await dlq.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect([d.messageId, d.deadLetterReason, d.deadLetterErrorDescription, d.body]).toEqual([
      'dl1',
      'Invalid',
      'field x is missing',
      'bad',
    ]);
    await r.close();
    await dlq.close();
  });

  it('an expired lock redelivers with delivery count +1; completing with the lost lock fails with MessageLockLost; renew-lock extends', async () => {
    await h.client.createSender('short-lock').sendMessages({ body: 'slow' });
    const r = h.client.createReceiver('short-lock', { maxAutoLockRenewalDurationInMs: 0 });
    const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    const before = m.lockedUntilUtc!.getTime();
    const renewed = await r.renewMessageLock(m);
    expect(renewed.getTime()).toBeGreaterThanOrEqual(before);
    const again = await waitFor(async () => (await r.receiveMessages(1, { maxWaitTimeInMs: 200 }))[0]);
    expect(again.deliveryCount).toBe(1);
    const err = await r.completeMessage(m).catch((e: unknown) => e);
    expect((err as ServiceBusError).code).toBe('MessageLockLost');
    await r.completeMessage(again);
    await r.close();
  });

  it('expired messages are dead-lettered with TTLExpiredException when the queue says so', async () => {
    await h.client.createSender('expiring').sendMessages([{ body: 'old', messageId: 'ttl1' }]);
    const dlq = h.client.createReceiver('expiring', { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    const d = await waitFor(async () => (await dlq.receiveMessages(1, { maxWaitTimeInMs: 200 }))[0]);
    expect([d.messageId, d.deadLetterReason]).toEqual(['ttl1', 'TTLExpiredException']);
    // a message TTL shorter than the queue's default, on a queue without dead-lettering on expiry: just gone
    await h.client.createSender('orders').sendMessages({ body: 'brief', timeToLive: 100 });
    const r = h.client.createReceiver('orders', { receiveMode: 'receiveAndDelete' });
    await waitFor(
      async () =>
        (await r.peekMessages(10)).length === 0 || (await r.peekMessages(10)).every((p) => p.expiresAtUtc!.getTime() < Date.now()),
    );
    await waitFor(() => Date.now() > d.enqueuedTimeUtc!.getTime() + 150);
    expect(await r.receiveMessages(1, { maxWaitTimeInMs: 200 })).toEqual([]);
    await r.close();
    await dlq.close();
  });

  it('schedules messages (sequence numbers back), cancels one, delivers the other when due; peek shows scheduled ones', async () => {
    const s = h.client.createSender('orders');
    const at = new Date(Date.now() + 400);
    const [keep, drop] = await s.scheduleMessages([{ body: 'later' }, { body: 'never' }], at);
    const r = h.client.createReceiver('orders');
    const peeked = await r.peekMessages(10);
    expect(peeked.map((p) => p.state)).toEqual(['scheduled', 'scheduled']);
    await s.cancelScheduledMessages(drop);
    const m = await waitFor(async () => (await r.receiveMessages(1, { maxWaitTimeInMs: 200 }))[0]);
    expect(m.body).toBe('later');
    expect(m.sequenceNumber!.toNumber()).toBe(keep.toNumber());
    expect(Date.now()).toBeGreaterThanOrEqual(at.getTime() - 5);
    await r.completeMessage(m);
    expect(await r.receiveMessages(1, { maxWaitTimeInMs: 600 })).toEqual([]);
    await r.close();
  });

  it('defers a message and receives it by sequence number', async () => {
    await h.client.createSender('orders').sendMessages({ body: 'defer-me' });
    const r = h.client.createReceiver('orders');
    const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await r.deferMessage(m);
    expect(await r.receiveMessages(1, { maxWaitTimeInMs: 100 })).toEqual([]);
    const [peeked] = await r.peekMessages(1, { fromSequenceNumber: m.sequenceNumber });
    expect(peeked.state).toBe('deferred');
    const [d] = await r.receiveDeferredMessages(m.sequenceNumber!);
    expect(d.body).toBe('defer-me');
    await r.completeMessage(d);
    expect(await r.receiveDeferredMessages(m.sequenceNumber!).catch((e: unknown) => (e as ServiceBusError).code)).toBe('MessageNotFound');
    await r.close();
  });
});

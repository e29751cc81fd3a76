import { ServiceBusError, ServiceBusReceivedMessage } from '@azure/service-bus';
import { Harness, startHarness } from './helpers';

async function drainAll(h: Harness, entity: [string, string?]): Promise<ServiceBusReceivedMessage[]> {
  const r = entity[1]
    ? h.client.createReceiver(entity[0], entity[1], { receiveMode: 'receiveAndDelete' })
    : h.client.createReceiver(entity[0], { receiveMode: 'receiveAndDelete' });
  const out: ServiceBusReceivedMessage[] = [];
  for (;;) {
    const got = await r.receiveMessages(50, { maxWaitTimeInMs: 300 });
    if (!got.length) break;
    out.push(...got);
  }
  await r.close();
  return out;
}

describe('service bus emulator: topics with filters, duplicate detection, sessions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('fans a topic message out to the subscriptions whose correlation or SQL rule matches', async () => {
    const s = h.client.createSender('events');
    await s.sendMessages([
      { body: 1, messageId: 'red', subject: 'color', applicationProperties: { color: 'red' } },
      { body: 2, messageId: 'blue', subject: 'color', applicationProperties: { color: 'blue' } },
      { body: 3, messageId: 'big-a', applicationProperties: { size: 20, kind: 'a' } },
      { body: 4, messageId: 'big-x', applicationProperties: { size: 20, kind: 'z', name: 'xylophone' } },
      { body: 5, messageId: 'big-skip', applicationProperties: { size: 20, kind: 'a', skip: true } },
      { body: 6, messageId: 'small', applicationProperties: { size: 5, kind: 'a' } },
      { body: 7, messageId: 'no-size', applicationProperties: { kind: 'a' } },
    ]);
    const ids = async (sub: string): Promise<string[]> => (await drainAll(h, ['events', sub])).map((m) => String(m.messageId));
    expect(await ids('all')).toEqual(['red', 'blue', 'big-a', 'big-x', 'big-skip', 'small', 'no-size']);
    expect(await ids('red')).toEqual(['red']);
    expect(await ids('big')).toEqual(['big-a', 'big-x']);
    const err = await h.client
      .createSender('events/Subscriptions/all')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceBusError);
  });

  it('drops a second message with the same MessageId inside the duplicate-detection window', async () => {
    const s = h.client.createSender('dedup');
    const dropped = h.emu.counters().duplicatesDropped;
    await s.sendMessages({ body: 'first', messageId: 'same' });
    await s.sendMessages({ body: 'again', messageId: 'same' });
    await s.sendMessages({ body: 'other', messageId: 'different' });
    expect((await drainAll(h, ['dedup'])).map((m) => m.body)).toEqual(['first', 'other']);
    expect(h.emu.counters().duplicatesDropped - dropped).toBe(1);
  });

  it('delivers a session in order to the receiver that locked it; next-session, state, renewal, and a locked session refused', async () => {
    const s = h.client.createSender('sessions');
    await s.sendMessages([
      { body: 'a1', sessionId: 'A' },
      { body: 'b1', sessionId: 'B' },
      { body: 'a2', sessionId: 'A' },
      { body: 'b2', sessionId: 'B' },
      { body: 'a3', sessionId: 'A' },
    ]);
    const ra = await h.client.acceptNextSession('sessions');
    expect(ra.sessionId).toBe('A');
    const other = await h.client.acceptSession('sessions', 'A').catch((e: unknown) => e);
    expect((other as ServiceBusError).code).toBe('SessionCannotBeLocked');
    const rb = await h.client.acceptSession('sessions', 'B');
    const gotA: unknown[] = [];
    while (gotA.length < 3)
      for (const m of await ra.receiveMessages(3, { maxWaitTimeInMs: 1000 })) {
        gotA.push(m.body);
        await ra.completeMessage(m);
      }
    expect(gotA).toEqual(['a1', 'a2', 'a3']);
    await ra.setSessionState('checkpoint-3');
    expect(await ra.getSessionState()).toBe('checkpoint-3');
    const until = ra.sessionLockedUntilUtc!.getTime();
    await ra.renewSessionLock();
    expect(ra.sessionLockedUntilUtc!.getTime()).toBeGreaterThanOrEqual(until);
    const [b1] = await rb.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    expect(b1.body).toBe('b1');
    await rb.abandonMessage(b1);
    // (the SDK may already hold b2, prefetched by its credit: it comes first then)
    const rest: [unknown, number][] = [];
    while (rest.length < 2)
      for (const m of await rb.receiveMessages(2, { maxWaitTimeInMs: 1000 })) {
        rest.push([m.body, m.deliveryCount ?? -1]);
        await rb.completeMessage(m);
      }
    expect(rest.sort()).toEqual([
      ['b1', 1],
      ['b2', 0],
    ]);
    await ra.close();
    const again = await h.client.acceptSession('sessions', 'A');
    expect(await again.getSessionState()).toBe('checkpoint-3');
    await again.close();
    await rb.close();
    const plain = await h.client
      .createReceiver('sessions')
      .receiveMessages(1, { maxWaitTimeInMs: 500 })
      .catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(Error);
  });

  it('accept-next-session waits for a session to turn up, and fails when none does within the timeout', async () => {
    const pending = h.client.acceptNextSession('sessions');
    await h.client.createSender('sessions').sendMessages({ body: 'late', sessionId: 'C' });
    const rc = await pending;
    expect(rc.sessionId).toBe('C');
    const [m] = await rc.receiveMessages(1, { maxWaitTimeInMs: 1000 });
    await rc.completeMessage(m);
    await rc.close();
    const impatient = new (h.client.constructor as typeof import('@azure/service-bus').ServiceBusClient)(h.emu.connectionString, {
      retryOptions: { maxRetries: 0, timeoutInMs: 500 },
    });
    const quick = await impatient.acceptNextSession('sessions').catch((e: unknown) => e);
    await impatient.close();
    expect(quick).toBeInstanceOf(Error);
  }, 30_000);
});

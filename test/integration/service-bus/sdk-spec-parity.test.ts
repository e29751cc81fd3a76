import {
  ProcessErrorArgs,
  RuleProperties,
  ServiceBusClient,
  ServiceBusError,
  ServiceBusReceivedMessage,
  isServiceBusError,
} from '@azure/service-bus';
import { ServiceBusEmulator, startServiceBus } from '@opstream/service-bus-emulator';
import { waitFor } from '../../helpers/wait-for';

/**
 * Behaviours the @azure/service-bus SDK's own public specs check against the real service, through the
 * real client: delivery counts, propertiesToModify, scheduled message state, SessionLockLost, message
 * size, dead-letter peeking on every entity kind, and rule management over $management.
 */
const CONFIG = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'sbemulatorns',
        Queues: [
          { Name: 'plain', Properties: { LockDuration: 'PT1M', MaxDeliveryCount: 10 } },
          { Name: 'sessions', Properties: { RequiresSession: true, LockDuration: 'PT0.5S' } },
          { Name: 'small', Properties: { MaxMessageSizeInKilobytes: 1 } },
        ],
        Topics: [
          {
            Name: 'orders',
            Properties: { MaxMessageSizeInKilobytes: 1 },
            Subscriptions: [
              { Name: 'ruled', Properties: {} },
              { Name: 'by-session', Properties: { RequiresSession: true } },
            ],
          },
        ],
      },
    ],
    Logging: { Type: 'File' },
  },
};

describe('service bus emulator: what the SDK specs check', () => {
  let emu: ServiceBusEmulator;
  let client: ServiceBusClient;
  beforeAll(async () => {
    emu = await startServiceBus({ port: 0, config: CONFIG });
    client = new ServiceBusClient(emu.connectionString, { retryOptions: { maxRetries: 1, retryDelayInMs: 50, timeoutInMs: 10_000 } });
  });
  afterAll(async () => {
    await client.close();
    await emu.close();
  });

  async function receiveOne(r: {
    receiveMessages(n: number, o: { maxWaitTimeInMs: number }): Promise<ServiceBusReceivedMessage[]>;
  }): Promise<ServiceBusReceivedMessage> {
    return waitFor(async () => (await r.receiveMessages(1, { maxWaitTimeInMs: 500 }))[0]);
  }

  it('counts every delivery: 1 once a deferred message is received, 2 after it is abandoned or deferred again; dead-lettering keeps the count', async () => {
    const s = client.createSender('plain');
    const r = client.createReceiver('plain');
    const dlq = client.createReceiver('plain', { subQueueType: 'deadLetter' });
    await s.sendMessages([
      { body: 'a', messageId: 'dc-a' },
      { body: 'b', messageId: 'dc-b' },
    ]);
    for (const id of ['dc-a', 'dc-b']) {
      const m = await receiveOne(r);
      expect([m.messageId, m.deliveryCount]).toEqual([id, 0]);
      await r.deferMessage(m);
      const [d] = await r.receiveDeferredMessages(m.sequenceNumber!);
      expect([d.state, d.deliveryCount]).toEqual(['deferred', 1]);
      if (id === 'dc-a') {
        await r.abandonMessage(d);
        const [again] = await r.receiveDeferredMessages(m.sequenceNumber!);
        expect(again.deliveryCount).toBe(2);
        await r.deferMessage(again);
        const [third] = await r.receiveDeferredMessages(m.sequenceNumber!);
        expect(third.deliveryCount).toBe(3);
        await r.completeMessage(third);
      } else {
        await r.deadLetterMessage(d);
        const dead = await receiveOne(dlq);
        expect([dead.messageId, dead.deliveryCount]).toEqual(['dc-b', 1]);
        await dlq.completeMessage(dead);
      }
    }
    await Promise.all([r.close(), dlq.close(), s.close()]);
  });

  it('applies propertiesToModify on abandon, defer and dead-letter, on the link and through $management', async () => {
    const s = client.createSender('plain');
    const r = client.createReceiver('plain');
    const dlq = client.createReceiver('plain', { subQueueType: 'deadLetter', receiveMode: 'receiveAndDelete' });
    await s.sendMessages({ body: 'p', messageId: 'ptm', applicationProperties: { keep: 'k', over: 'old' } });
    const m = await receiveOne(r);
    await r.abandonMessage(m, { over: 'abandoned', count: 7 });
    const a = await receiveOne(r);
    expect(a.applicationProperties).toEqual({ keep: 'k', over: 'abandoned', count: 7 });
    await r.deferMessage(a, { deferredAt: 'link' });
    const [d] = await r.receiveDeferredMessages(a.sequenceNumber!);
    expect(d.applicationProperties).toMatchObject({ keep: 'k', over: 'abandoned', deferredAt: 'link' });
    // a deferred message settles through $management (update-disposition with properties-to-modify)
    await r.abandonMessage(d, { viaManagement: true });
    const [d2] = await r.receiveDeferredMessages(a.sequenceNumber!);
    expect(d2.applicationProperties).toMatchObject({ viaManagement: true, deferredAt: 'link' });
    await r.deadLetterMessage(d2, { deadLetterReason: 'why', deadLetterErrorDescription: 'because', customProperty: 'custom' });
    const dead = await receiveOne(dlq);
    expect([
      dead.deadLetterReason,
      dead.deadLetterErrorDescription,
      dead.applicationProperties?.customProperty,
      dead.applicationProperties?.keep,
    ]).toEqual(['why', 'because', 'custom', 'k']);
    // and on the link
    await s.sendMessages({ body: 'q', messageId: 'ptm-link' });
    const l = await receiveOne(r);
    await r.deadLetterMessage(l, { deadLetterReason: 'r2', deadLetterErrorDescription: 'd2', customProperty: 'on the link' });
    const dead2 = await receiveOne(dlq);
    expect([dead2.messageId, dead2.deadLetterReason, dead2.applicationProperties?.customProperty]).toEqual([
      'ptm-link',
      'r2',
      'on the link',
    ]);
    await Promise.all([r.close(), dlq.close(), s.close()]);
  });

  it('a scheduled message is peeked as scheduled, not received before its time, and still reports state scheduled when received', async () => {
    const s = client.createSender('plain');
    const r = client.createReceiver('plain');
    const at = new Date(Date.now() + 700);
    const [seq, cancelled] = await s.scheduleMessages(
      [
        { body: 'later', messageId: 'sch' },
        { body: 'never', messageId: 'sch-x' },
      ],
      at,
    );
    expect((await r.peekMessages(10)).map((p) => [p.messageId, p.state])).toEqual([
      ['sch', 'scheduled'],
      ['sch-x', 'scheduled'],
    ]);
    await s.cancelScheduledMessages(cancelled);
    expect(await r.receiveMessages(1, { maxWaitTimeInMs: 200 })).toEqual([]);
    const m = await receiveOne(r);
    expect([m.messageId, m.state, m.sequenceNumber!.toNumber()]).toEqual(['sch', 'scheduled', seq.toNumber()]);
    expect(m.enqueuedTimeUtc!.getTime()).toBeGreaterThanOrEqual(at.getTime());
    await r.completeMessage(m);
    // without a scheduled enqueue time a message is active
    await s.sendMessages({ body: 'now', messageId: 'act' });
    const n = await receiveOne(r);
    expect(n.state).toBe('active');
    await r.completeMessage(n);
    expect(await r.peekMessages(10)).toEqual([]);
    await Promise.all([r.close(), s.close()]);
  });

  it('settling after the session lock ran out reports SessionLockLost; a streaming receiver gets it in processError; the message came back with delivery count 1', async () => {
    const s = client.createSender('sessions');
    await s.sendMessages({ body: 'x', sessionId: 'expiring', messageId: 'sl-1' });
    const r = await client.acceptSession('sessions', 'expiring', { maxAutoLockRenewalDurationInMs: 0 });
    const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await waitFor(() => Date.now() > r.sessionLockedUntilUtc!.getTime() + 100);
    const err = await r.completeMessage(m).catch((e: unknown) => e);
    expect((err as ServiceBusError).code).toBe('SessionLockLost');
    await r.close();

    const streaming = await client.acceptSession('sessions', 'expiring', { maxAutoLockRenewalDurationInMs: 0 });
    const seen: ServiceBusReceivedMessage[] = [];
    const errors: string[] = [];
    streaming.subscribe(
      {
        processMessage: async (msg) => {
          seen.push(msg);
        },
        processError: async (args: ProcessErrorArgs) => {
          errors.push(isServiceBusError(args.error) ? args.error.code : args.error.message);
        },
      },
      { autoCompleteMessages: false },
    );
    await waitFor(() => errors.includes('SessionLockLost'), { describe: () => `errors ${JSON.stringify(errors)}` });
    expect([seen[0].messageId, seen[0].deliveryCount]).toEqual(['sl-1', 1]);
    expect(((await streaming.completeMessage(seen[0]).catch((e: unknown) => e)) as ServiceBusError).code).toBe('SessionLockLost');
    await Promise.all([streaming.close(), s.close()]);
  });

  it('refuses a message over the entity maximum size with MessageSizeExceeded, sent or scheduled', async () => {
    const s = client.createSender('small');
    const big = { body: 'x'.repeat(2048) };
    expect(((await s.sendMessages(big).catch((e: unknown) => e)) as ServiceBusError).code).toBe('MessageSizeExceeded');
    expect(((await s.scheduleMessages(big, new Date(Date.now() + 60_000)).catch((e: unknown) => e)) as ServiceBusError).code).toBe(
      'MessageSizeExceeded',
    );
    const t = client.createSender('orders');
    expect(((await t.scheduleMessages(big, new Date(Date.now() + 60_000)).catch((e: unknown) => e)) as ServiceBusError).code).toBe(
      'MessageSizeExceeded',
    );
    await s.sendMessages({ body: 'fits' });
    const r = client.createReceiver('small', { receiveMode: 'receiveAndDelete' });
    expect((await receiveOne(r)).body).toBe('fits');
    await Promise.all([r.close(), s.close(), t.close()]);
  });

  it("peeks without the body when asked (omit-message-body, the SDK's peekMessages omitMessageBody), on a queue and in a session", async () => {
    const q = client.createSender('plain');
    await q.sendMessages({ body: 'hidden', messageId: 'omit-1', subject: 'kept', applicationProperties: { a: 1 } });
    const r = client.createReceiver('plain', { receiveMode: 'receiveAndDelete' });
    // a receiver's peek goes on from the last message it peeked: each peek here names where it starts
    const first = await waitFor(async () => (await r.peekMessages(1))[0]);
    const from = { fromSequenceNumber: first.sequenceNumber! };
    // omitMessageBody is in 7.9's peek options at run time but not in its published types
    const omit = { ...from, omitMessageBody: true } as Parameters<typeof r.peekMessages>[1];
    const [peeked] = await r.peekMessages(1, omit);
    expect([peeked.body, peeked.messageId, peeked.subject, peeked.applicationProperties]).toEqual([undefined, 'omit-1', 'kept', { a: 1 }]);
    expect((await r.peekMessages(1, from))[0].body).toBe('hidden');
    expect((await receiveOne(r)).body).toBe('hidden');

    const s = client.createSender('sessions');
    await s.sendMessages({ body: 'session body', sessionId: 'omit', messageId: 'omit-2' });
    const sr = await client.acceptSession('sessions', 'omit', { receiveMode: 'receiveAndDelete' });
    const [sp] = await sr.peekMessages(1, { omitMessageBody: true } as Parameters<typeof sr.peekMessages>[1]);
    expect([sp.body, sp.messageId, sp.sessionId]).toEqual([undefined, 'omit-2', 'omit']);
    expect((await receiveOne(sr)).body).toBe('session body');
    await Promise.all([r.close(), q.close(), sr.close(), s.close()]);
  });

  it('peeks dead-lettered messages in the dead-letter queue of a session subscription', async () => {
    const t = client.createSender('orders');
    await t.sendMessages({ body: 'dl', sessionId: 's1', messageId: 'dl-sub' });
    const r = await client.acceptSession('orders', 'by-session', 's1');
    const [m] = await r.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    await r.deadLetterMessage(m, { deadLetterReason: 'test', deadLetterErrorDescription: 'peek me' });
    const dlq = client.createReceiver('orders', 'by-session', { subQueueType: 'deadLetter' });
    const peeked = await dlq.peekMessages(10);
    expect(peeked.map((p) => [p.messageId, p.deadLetterReason, p.deadLetterSource])).toEqual([
      ['dl-sub', 'test', 'orders/Subscriptions/by-session'],
    ]);
    const ruled = client.createReceiver('orders', 'ruled', { receiveMode: 'receiveAndDelete' });
    await receiveOne(ruled);
    await Promise.all([r.close(), dlq.close(), ruled.close(), t.close()]);
  });

  it('manages rules over $management: $Default true filter, add SQL and correlation rules with actions, list by page, delete, filter what is delivered', async () => {
    const rules = client.createRuleManager('orders', 'ruled');
    const all = async (): Promise<RuleProperties[]> => {
      const out: RuleProperties[] = [];
      for await (const rule of rules.listRules()) out.push(rule);
      return out;
    };
    const first = await all();
    expect(first.map((r) => [r.name, r.filter, r.action])).toEqual([['$Default', { sqlExpression: '1=1' }, {}]]);
    await rules.createRule('sqlRule', { sqlExpression: "color = 'blue'" }, { sqlExpression: "SET priority = 'high'" });
    const when = new Date('2000-01-01T00:00:00Z');
    await rules.createRule('corrRule', { subject: 'red', applicationProperties: { size: 2, at: when } });
    const err = await rules.createRule('sqlRule', { sqlExpression: '1=1' }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/The messaging entity '.*sqlRule' already exists/);
    const pages: string[][] = [];
    for await (const page of rules.listRules().byPage({ maxPageSize: 1 })) pages.push(page.map((r) => r.name));
    expect(pages).toEqual([['$Default'], ['corrRule'], ['sqlRule']]);
    const corr = (await all()).find((r) => r.name === 'corrRule')!;
    expect(corr.filter).toMatchObject({ subject: 'red', applicationProperties: { size: 2, at: when } });
    expect((await all()).find((r) => r.name === 'sqlRule')!.action).toEqual({ sqlExpression: "SET priority = 'high'" });
    await rules.deleteRule('$Default');
    expect(((await rules.deleteRule('$Default').catch((e: unknown) => e)) as ServiceBusError).code).toBe('MessagingEntityNotFound');

    const t = client.createSender('orders');
    await t.sendMessages([
      { body: 1, messageId: 'blue', applicationProperties: { color: 'blue', priority: 'low' } },
      { body: 2, messageId: 'red', subject: 'red', applicationProperties: { size: 2, at: when } },
      { body: 3, messageId: 'green', applicationProperties: { color: 'green' } },
    ]);
    const r = client.createReceiver('orders', 'ruled', { receiveMode: 'receiveAndDelete' });
    const got: ServiceBusReceivedMessage[] = [];
    await waitFor(async () => {
      got.push(...(await r.receiveMessages(10, { maxWaitTimeInMs: 300 })));
      return got.length >= 2;
    });
    expect(await r.receiveMessages(1, { maxWaitTimeInMs: 200 })).toEqual([]);
    expect(got.map((m) => [m.messageId, m.applicationProperties?.priority])).toEqual([
      ['blue', 'high'],
      ['red', undefined],
    ]);
    await rules.deleteRule('sqlRule');
    await rules.deleteRule('corrRule');
    await rules.createRule('$Default', { sqlExpression: '1=1' });
    await Promise.all([r.close(), t.close()]);
  });
});

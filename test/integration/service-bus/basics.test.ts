import { Harness, startHarness } from './helpers';

describe('service bus emulator: send and receive through @azure/service-bus', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('prints the connection string the official emulator documents', () => {
    expect(h.emu.connectionString).toMatch(
      /^Endpoint=sb:\/\/127\.0\.0\.1:\d+;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=SAS_KEY_VALUE;UseDevelopmentEmulator=true$/,
    );
  });

  it('sends one message and a batch, receives them in peek-lock and completes them', async () => {
    const sender = h.client.createSender('orders');
    await sender.sendMessages({ body: { n: 0 }, messageId: 'm0', applicationProperties: { kind: 'single' } });
    const batch = await sender.createMessageBatch();
    for (let i = 1; i <= 3; i++) expect(batch.tryAddMessage({ body: { n: i } })).toBe(true);
    await sender.sendMessages(batch);
    await sender.sendMessages([{ body: { n: 4 } }, { body: { n: 5 } }]);
    const receiver = h.client.createReceiver('orders');
    const got = [];
    while (got.length < 6) {
      const msgs = await receiver.receiveMessages(6 - got.length, { maxWaitTimeInMs: 2000 });
      got.push(...msgs);
    }
    expect(got.map((m) => (m.body as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(got[0].messageId).toBe('m0');
    expect(got[0].applicationProperties).toEqual({ kind: 'single' });
    expect(got[1].messageId).toBeDefined();
    expect(got.map((m) => m.sequenceNumber!.toNumber())).toEqual([1, 2, 3, 4, 5, 6]);
    expect(got[0].deliveryCount).toBe(0);
    expect(got[0].lockedUntilUtc!.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(got[0].enqueuedTimeUtc).toBeInstanceOf(Date);
    for (const m of got) await receiver.completeMessage(m);
    expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 200 })).toEqual([]);
    await receiver.close();
    await sender.close();
  });

  it('receive-and-delete removes messages on delivery', async () => {
    const sender = h.client.createSender('orders');
    await sender.sendMessages([{ body: 'a' }, { body: 'b' }]);
    const receiver = h.client.createReceiver('orders', { receiveMode: 'receiveAndDelete' });
    const got = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2000 });
    expect(got.map((m) => m.body)).toEqual(['a', 'b']);
    const peek = await receiver.peekMessages(10);
    expect(peek).toEqual([]);
    await receiver.close();
    await sender.close();
  });
});

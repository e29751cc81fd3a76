import { ServiceBusReceivedMessage } from '@azure/service-bus';
import { Harness, startHarness } from './helpers';

async function fill(h: Harness, queue: string, count: number): Promise<void> {
  const sender = h.client.createSender(queue);
  for (let i = 0; i < count; i += 250)
    await sender.sendMessages(Array.from({ length: Math.min(250, count - i) }, (_, j) => ({ body: i + j })));
  await sender.close();
}

describe('service bus emulator: credit and settlement flow', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it('hands out no more messages than the receiver gave credit for: the rest stay in the queue', async () => {
    await fill(h, 'orders', 10);
    const rad = h.client.createReceiver('orders', { receiveMode: 'receiveAndDelete' });
    expect((await rad.receiveMessages(1, { maxWaitTimeInMs: 2000 })).map((m) => m.body)).toEqual([0]);
    await rad.close();
    const lock = h.client.createReceiver('orders');
    const [m] = await lock.receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(m.body).toBe(1);
    const orders = h.emu.entities().find((e) => e.path === 'orders') as { active: number; locked: number };
    expect([orders.active, orders.locked]).toEqual([9, 1]);
    await lock.close();
  });

  it('keeps delivering on one peek-lock receiver past 2,048 settled messages', async () => {
    const total = 2_600;
    await fill(h, 'bench', total);
    const receiver = h.client.createReceiver('bench');
    let completed = 0;
    await new Promise<void>((resolve, reject) => {
      const sub = receiver.subscribe(
        {
          processMessage: async (m: ServiceBusReceivedMessage) => {
            await receiver.completeMessage(m);
            if (++completed === total) resolve();
          },
          processError: async (args) => reject(args.error),
        },
        { autoCompleteMessages: false, maxConcurrentCalls: 50 },
      );
      void sub;
    });
    expect(completed).toBe(total);
    expect(await receiver.peekMessages(1)).toEqual([]);
    await receiver.close();
  }, 30_000);
});

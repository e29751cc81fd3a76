import { Broker } from '@opstream/service-bus-emulator/broker';
import { parseConfig } from '@opstream/service-bus-emulator/config';
import { encodeMessage } from '@opstream/service-bus-emulator/amqp';
import { parseTransfer } from '@opstream/service-bus-emulator/sections';

/** AutoDeleteOnIdle and ForwardDeadLetteredMessagesTo, on a fake clock. */
describe('service bus emulator: entity lifetime and dead-letter forwarding', () => {
  const MINUTE = 60_000;
  let clock = Date.UTC(2026, 0, 1);
  const config = {
    UserConfig: {
      Namespaces: [
        {
          Name: 'ns',
          Queues: [
            { Name: 'idle', Properties: { AutoDeleteOnIdle: 'PT5M' } },
            { Name: 'parking', Properties: {} },
            { Name: 'work', Properties: { MaxDeliveryCount: 1, LockDuration: 'PT1M', ForwardDeadLetteredMessagesTo: 'parking' } },
          ],
        },
      ],
    },
  };
  const send = (broker: Broker, queue: string, body: string): Promise<number[]> =>
    broker.send(broker.sendTarget(queue), [parseTransfer(encodeMessage({ body }))]);

  it('deletes a queue left idle for its AutoDeleteOnIdle, and a send puts the deadline off', async () => {
    const broker = new Broker(parseConfig(config), () => clock);
    try {
      clock += 4 * MINUTE;
      await send(broker, 'idle', 'keeps it');
      clock += 4 * MINUTE;
      broker.deadlines.fire();
      expect(broker.entities.has('idle')).toBe(true);
      clock += MINUTE + 1;
      broker.deadlines.fire();
      expect(broker.entities.has('idle')).toBe(false);
      expect(() => broker.sendTarget('idle')).toThrow(/could not be found/);
    } finally {
      await broker.close();
    }
  });

  it('forwards a dead-lettered message to ForwardDeadLetteredMessagesTo instead of its dead-letter queue', async () => {
    const broker = new Broker(parseConfig(config), () => clock);
    try {
      await send(broker, 'work', 'poison');
      const work = broker.receiveEntity('work');
      const m = work.next(undefined)!;
      work.lock(m, 'link');
      work.abandon(m);
      expect(work.counts().active).toBe(0);
      expect(broker.receiveEntity('work/$DeadLetterQueue').messages.size).toBe(0);
      const parked = broker.receiveEntity('parking').peek(0, 1, undefined)[0];
      expect(parked.fields.applicationProperties.DeadLetterReason).toBe('MaxDeliveryCountExceeded');
    } finally {
      await broker.close();
    }
  });
});

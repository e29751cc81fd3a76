import { Broker } from '@opstream/service-bus-emulator/broker';
import { parseConfig } from '@opstream/service-bus-emulator/config';
import { decodeMessage, encodeMessage } from '@opstream/service-bus-emulator/amqp';
import { encodeForDelivery, MAX_HEADER_TTL_MS } from '@opstream/service-bus-emulator/message';
import { parseTransfer } from '@opstream/service-bus-emulator/sections';

/**
 * A default time to live longer than the AMQP header's uint can carry (101 days, as the SDK's
 * amqpAnnotatedMessage spec declares) is delivered without a header ttl and still enforced.
 */
describe('service bus emulator: a time to live beyond the AMQP header', () => {
  const DAY = 86_400_000;
  let clock = Date.UTC(2026, 0, 1);
  const config = {
    UserConfig: {
      Namespaces: [
        {
          Name: 'ns',
          Queues: [{ Name: 'long', Properties: { DefaultMessageTimeToLive: 'P101D', DeadLetteringOnMessageExpiration: true } }],
        },
      ],
    },
  };

  it('delivers the message without a header ttl, and dead-letters it once the 101 days have passed', async () => {
    const broker = new Broker(parseConfig(config), () => clock);
    try {
      const target = broker.sendTarget('long');
      await broker.send(target, [parseTransfer(encodeMessage({ body: 'kept', message_id: 'm1' }))]);
      const queue = broker.receiveEntity('long');
      const message = queue.peek(0, 1, undefined)[0];
      expect(message.ttlMs).toBe(101 * DAY);
      expect(message.ttlMs).toBeGreaterThan(MAX_HEADER_TTL_MS);
      const delivered = decodeMessage(encodeForDelivery(message));
      expect(delivered.ttl).toBeUndefined();
      expect(delivered.body).toBe('kept');

      clock += 100 * DAY;
      broker.deadlines.fire();
      expect(queue.counts().active).toBe(1);

      clock += DAY + 1;
      broker.deadlines.fire();
      expect(queue.counts().active).toBe(0);
      const dead = broker.receiveEntity('long/$DeadLetterQueue').peek(0, 1, undefined)[0];
      expect(dead.fields.applicationProperties.DeadLetterReason).toBe('TTLExpiredException');
    } finally {
      await broker.close();
    }
  });

  it('keeps a header ttl that fits', async () => {
    const broker = new Broker(parseConfig(config), () => clock);
    try {
      await broker.send(broker.sendTarget('long'), [parseTransfer(encodeMessage({ body: 'short', ttl: 60_000 }))]);
      const message = broker.receiveEntity('long').peek(0, 1, undefined)[0];
      expect(decodeMessage(encodeForDelivery(message)).ttl).toBe(60_000);
    } finally {
      await broker.close();
    }
  });
});

import type { ServiceBusClient, ServiceBusMessage, ServiceBusSender } from '@azure/service-bus';
import { serviceBusAccessOf } from '../auth/service-bus-auth';
import type { OpstreamConfig } from '../config/config-types';
import { closeBounded } from '../service-bus/close-bounded';
import { createServiceBusClient } from '../service-bus/service-bus-access';

const RETRY = { maxRetries: 2, retryDelayInMs: 500, maxRetryDelayInMs: 5000, timeoutInMs: 10_000 };

/**
 * Sends single messages to topics of the configured namespace (`dead-letters replay` of events);
 * one sender per topic, opened on first use. Undefined when no Service Bus namespace is configured.
 */
export interface TopicPublisher {
  publish(topic: string, message: ServiceBusMessage): Promise<'sent' | { tooLarge: number }>;
  close(): Promise<void>;
}

export function topicPublisher(config: OpstreamConfig): TopicPublisher | undefined {
  const access = serviceBusAccessOf(config);
  if (!access) return undefined;
  let client: ServiceBusClient | undefined;
  const senders = new Map<string, ServiceBusSender>();
  return {
    async publish(topic, message) {
      client ??= createServiceBusClient(access, { retryOptions: RETRY });
      let sender = senders.get(topic);
      if (!sender) senders.set(topic, (sender = client.createSender(topic)));
      // A batch says whether the message fits before anything is sent (as the publisher checks it).
      const batch = await sender.createMessageBatch();
      if (!batch.tryAddMessage(message)) return { tooLarge: batch.maxSizeInBytes };
      await sender.sendMessages(batch);
      return 'sent';
    },
    async close() {
      if (client) await closeBounded(client, () => Promise.all([...senders.values()].map((s) => s.close())).then(() => undefined));
    },
  };
}

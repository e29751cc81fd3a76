import { ServiceBusClient, type ServiceBusReceivedMessage } from '@azure/service-bus';

export const EVENTS_TOPIC = 'operation-events';

/** The namespace the operation-events tests declare: the topic with duplicate detection, a subscription that sees everything, the CS events topic. */
export const EVENTS_CONFIG = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'sbemulatorns',
        Queues: [],
        Topics: [
          {
            Name: EVENTS_TOPIC,
            Properties: { RequiresDuplicateDetection: true, DuplicateDetectionHistoryTimeWindow: 'PT10M' },
            Subscriptions: [
              { Name: 'all', Properties: {} },
              { Name: 'by-resource', Properties: { RequiresSession: true } },
              {
                Name: 'terminal-deletes',
                Properties: {},
                Rules: [
                  {
                    Name: 'r',
                    Properties: {
                      FilterType: 'Sql',
                      SqlFilter: { SqlExpression: "request = 'Delete' AND status IN ('Succeeded', 'Failed', 'Canceled')" },
                    },
                  },
                ],
              },
            ],
          },
          { Name: 'clusters-service-events', Properties: {}, Subscriptions: [{ Name: 'opstream', Properties: {} }] },
        ],
      },
    ],
    Logging: { Type: 'File' },
  },
};

/** Everything a subscription delivers, received through the real SDK (receive-and-delete) while the test runs. */
export interface Collector {
  messages: ServiceBusReceivedMessage[];
  close(): Promise<void>;
}

/** From a connection string, or a client built otherwise (e.g. Entra ID over TLS); the collector closes it. */
export function collect(source: string | ServiceBusClient, subscription = 'all'): Collector {
  const client =
    typeof source === 'string'
      ? new ServiceBusClient(source, { retryOptions: { maxRetries: 1, retryDelayInMs: 200, timeoutInMs: 5000 } })
      : source;
  const receiver = client.createReceiver(EVENTS_TOPIC, subscription, { receiveMode: 'receiveAndDelete' });
  const messages: ServiceBusReceivedMessage[] = [];
  const sub = receiver.subscribe({ processMessage: async (m) => void messages.push(m), processError: async () => undefined });
  return {
    messages,
    close: async () => {
      await sub.close();
      await receiver.close();
      await client.close();
    },
  };
}

export interface Published {
  id: string;
  status: string;
  messageId: string;
  sessionId?: string;
  sequenceNumber: number;
  properties: Record<string, unknown>;
  body: Record<string, unknown>;
}

export function published(messages: readonly ServiceBusReceivedMessage[]): Published[] {
  return messages
    .map((m) => {
      const body = m.body as Record<string, unknown>;
      return {
        id: String(body.id),
        status: String(body.status),
        messageId: String(m.messageId),
        sessionId: m.sessionId,
        sequenceNumber: Number(m.sequenceNumber?.toString()),
        properties: { ...m.applicationProperties },
        body,
      };
    })
    .sort((a, b) => a.sequenceNumber - b.sequenceNumber);
}

/** Published statuses of one operation, in the topic's order. */
export function statusesOf(all: readonly Published[], id: string): string[] {
  return all.filter((p) => p.id === id).map((p) => p.status);
}

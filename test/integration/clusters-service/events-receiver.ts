import { ServiceBusClient, type ServiceBusReceivedMessage } from '@azure/service-bus';
import { validate } from '../../../src/schemas/validator';

const CS_EVENTS_TOPIC = 'clusters-service-events';

/** A Service Bus emulator namespace with the events topic and one subscription, `test`. */
export const CS_EVENTS_BUS_CONFIG = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'sbemulatorns',
        Queues: [],
        Topics: [{ Name: CS_EVENTS_TOPIC, Properties: {}, Subscriptions: [{ Name: 'test', Properties: {} }] }],
      },
    ],
    Logging: { Type: 'File' },
  },
};

export interface CsEventsReceiver {
  /** Every message received so far, in order. */
  readonly received: readonly ServiceBusReceivedMessage[];
  /** The states published for `href`, in order (each message validated as a CS event). */
  statesOf(href: string): string[];
  close(): Promise<void>;
}

/** Receives the simulator's state-change events through the real SDK. */
export function receiveCsEvents(connectionString: string): CsEventsReceiver {
  const received: ServiceBusReceivedMessage[] = [];
  const client = new ServiceBusClient(connectionString);
  const receiver = client.createReceiver(CS_EVENTS_TOPIC, 'test', { receiveMode: 'receiveAndDelete' });
  receiver.subscribe({ processMessage: async (m) => void received.push(m), processError: async () => undefined });
  return {
    received,
    statesOf: (href) =>
      received
        .map((m) => validate('csEvent', m.body))
        .filter((e) => e.href === href)
        .map((e) => e.state),
    close: async () => {
      await receiver.close();
      await client.close();
    },
  };
}

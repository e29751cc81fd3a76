import { isServiceBusError, type ServiceBusClient, type ServiceBusReceivedMessage } from '@azure/service-bus';
import type { TapEvent } from '../ops/taps';
import { tapPredicate, type TapFilter } from '../ops/tap-filter';
import { check } from '../schemas/validator';
import { accessFix, createServiceBusClient, lastAttemptError, type ServiceBusAccess } from '../service-bus/service-bus-access';
import { CliError, EXIT } from './exit-codes';

/**
 * `opstream tap operation-events`: follows the Operation events topic from outside the processor,
 * through a subscription of its own, as tap events (one per message) that the tap command prints
 * like any other stream. The subscription is named, not created: creating one needs the Service
 * Bus administration API (HTTPS), which the local stand-in does not serve and which needs the
 * `Manage` right on the real service. Messages are received and deleted: give tapping a subscription
 * no other consumer reads.
 */
export const TAP_STREAM = 'operation-events';
/** The subscription `npm start` declares for tapping. */
export const TAP_SUBSCRIPTION = 'tap';

export interface TopicTapOptions {
  access: ServiceBusAccess;
  topic: string;
  subscription: string;
  filter: TapFilter;
}

const RETRY = { maxRetries: 2, retryDelayInMs: 500, maxRetryDelayInMs: 5000, timeoutInMs: 10_000 };

/** Yields each event until `signal` aborts; throws a CliError naming the setting when the topic cannot be read. */
export async function* topicEvents(options: TopicTapOptions, signal: AbortSignal, onConnected?: () => void): AsyncGenerator<TapEvent> {
  let client: ServiceBusClient;
  try {
    client = createServiceBusClient(options.access, { retryOptions: RETRY });
  } catch (err) {
    throw new CliError(`${settingsOf(options.access)} not usable: ${(err as Error).message}`, EXIT.config);
  }
  const receiver = client.createReceiver(options.topic, options.subscription, { receiveMode: 'receiveAndDelete' });
  const keep = tapPredicate(options.filter) ?? (() => true);
  try {
    let connected = false;
    while (!signal.aborted) {
      let batch: ServiceBusReceivedMessage[];
      try {
        batch = await receiver.receiveMessages(50, { maxWaitTimeInMs: 1000, abortSignal: signal });
      } catch (err) {
        if (signal.aborted) return;
        throw explain(err, options);
      }
      if (!connected) {
        connected = true;
        onConnected?.();
      }
      for (const message of batch) {
        const event = toTapEvent(message);
        if (keep(event)) yield event;
      }
    }
  } finally {
    await receiver.close().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

function toTapEvent(message: ServiceBusReceivedMessage): TapEvent {
  const at = (message.enqueuedTimeUtc ?? new Date()).toISOString();
  const event = check('operationEvent', message.body);
  // A message that is not an Operation event still prints, marked, so nothing is hidden from the watcher.
  if (!event.ok) return { stream: TAP_STREAM, at, data: { invalid: event.error.message, messageId: String(message.messageId) } };
  const { id, resourceId, subscriptionId, ...rest } = event.value;
  return { stream: TAP_STREAM, at, data: { ...rest, operationId: id, resourceId, subscriptionId } };
}

function explain(failure: unknown, o: TopicTapOptions): CliError {
  const err = lastAttemptError(failure);
  const where = `subscription ${o.subscription} of topic ${o.topic}`;
  if (isServiceBusError(err)) {
    if (err.code === 'MessagingEntityNotFound') {
      return new CliError(
        `${where} does not exist: create it (az servicebus topic subscription create, or Config.json for an emulator) or name another with --topic-subscription`,
        EXIT.config,
        { cause: err },
      );
    }
    if (err.code === 'UnauthorizedAccess') {
      return new CliError(
        `${where}: ${accessFix(o.access, err, 'Listen', `${o.topic}/Subscriptions/${o.subscription}`)}`,
        EXIT.noPermission,
        { cause: err },
      );
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/session/i.test(message)) {
    return new CliError(
      `${where} requires sessions; tap reads a subscription without sessions: create one for watching and pass --topic-subscription`,
      EXIT.config,
      { cause: err },
    );
  }
  return new CliError(`cannot read ${where} from Service Bus (${message}); check ${settingsOf(o.access)}`, EXIT.unavailable, {
    cause: err,
  });
}

/** The settings that named the namespace, as a message names them. */
function settingsOf(access: ServiceBusAccess): string {
  return access.kind === 'entra-id'
    ? 'settings serviceBus.namespace / serviceBus.endpoint (OPSTREAM_SERVICE_BUS_NAMESPACE, OPSTREAM_SERVICE_BUS_ENDPOINT, --service-bus-namespace, --service-bus-endpoint) are'
    : 'setting serviceBus.connectionString (OPSTREAM_SERVICE_BUS_CONNECTION_STRING, --service-bus-connection-string) is';
}

import { ConfigError } from '../config/config-error';
import type { OpstreamConfig } from '../config/config-types';
import type { Logger } from '../logging/logger';
import type { OpstreamMetrics } from '../ops/metrics';
import type { CsStateHint } from '../pipeline/reconcile/operation-reconciler';
import { CsEventsReceiver } from '../service-bus/cs-events-receiver';

/**
 * Clusters Service events in, when `serviceBus.connectionString` is set: each valid event asks the
 * pipeline to check the operations that follow that object now, counted by what it did.
 */
export function startCsEvents(
  config: OpstreamConfig,
  deps: { metrics: OpstreamMetrics; logger: Logger; checkNow: (hint: CsStateHint) => number },
): CsEventsReceiver | undefined {
  const { connectionString, clustersServiceTopic: topic, clustersServiceSubscription: subscription, followDelayMs } = config.serviceBus;
  if (!connectionString) return undefined;
  const entity = `${topic}/${subscription}`;
  const { metrics, logger } = deps;
  let receiver: CsEventsReceiver;
  try {
    receiver = new CsEventsReceiver({
      connectionString,
      topic,
      subscription,
      followDelayMs,
      logger,
      onEvent: (hint) => metrics.serviceBusReceived.inc({ entity, outcome: deps.checkNow(hint) > 0 ? 'woke' : 'ignored' }),
      onInvalid: () => metrics.serviceBusReceived.inc({ entity, outcome: 'invalid' }),
      onError: () => metrics.serviceBusFailures.inc({ entity, operation: 'receive' }),
    });
  } catch (err) {
    // The SDK parses the connection string when the client is built; its message names the missing part, never the key.
    throw new ConfigError(`setting serviceBus.connectionString (OPSTREAM_SERVICE_BUS_CONNECTION_STRING) is not usable: ${(err as Error).message}`, 'serviceBus.connectionString');
  }
  logger.info('receiving Clusters Service events from Service Bus', { topic, subscription, followDelayMs });
  return receiver;
}

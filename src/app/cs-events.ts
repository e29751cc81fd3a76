import type { OpstreamConfig } from '../config/config-types';
import type { Logger } from '../logging/logger';
import type { OpstreamMetrics } from '../ops/metrics';
import type { CsStateHint } from '../pipeline/cs-hints';
import { CsEventsReceiver } from '../service-bus/cs-events-receiver';
import type { ServiceBusAccess } from '../service-bus/service-bus-access';
import { unusableServiceBusSettings } from '../auth/service-bus-auth';

/**
 * Clusters Service events in, when a Service Bus namespace is configured (`access`): each valid event asks the
 * pipeline to check the operations that follow that object now, counted by what it did.
 */
export function startCsEvents(
  config: OpstreamConfig,
  deps: { access: ServiceBusAccess | undefined; metrics: OpstreamMetrics; logger: Logger; checkNow: (hint: CsStateHint) => number },
): CsEventsReceiver | undefined {
  const { clustersServiceTopic: topic, clustersServiceSubscription: subscription, followDelayMs } = config.serviceBus;
  const { access } = deps;
  if (!access) return undefined;
  const entity = `${topic}/${subscription}`;
  const { metrics, logger } = deps;
  let receiver: CsEventsReceiver;
  try {
    receiver = new CsEventsReceiver({
      access,
      topic,
      subscription,
      followDelayMs,
      logger,
      onEvent: (hint) => metrics.serviceBusReceived.inc({ entity, outcome: deps.checkNow(hint) > 0 ? 'woke' : 'ignored' }),
      onInvalid: () => metrics.serviceBusReceived.inc({ entity, outcome: 'invalid' }),
      onError: () => metrics.serviceBusFailures.inc({ entity, operation: 'receive' }),
    });
  } catch (err) {
    throw unusableServiceBusSettings(access, err);
  }
  logger.info('receiving Clusters Service events from Service Bus', { topic, subscription, followDelayMs });
  return receiver;
}

import type { WakeResult } from '@opstream/changefeed';
import type { OpstreamConfig } from '../config/config-types';
import type { Logger } from '../logging/logger';
import type { OpstreamMetrics } from '../ops/metrics';
import { OperationHintsReceiver } from '../service-bus/operation-hints-receiver';
import type { ServiceBusAccess } from '../service-bus/service-bus-access';
import { unusableServiceBusSettings } from '../auth/service-bus-auth';

/** Whether this configuration receives wake-up hints (and so polls idle ranges at the hints ceiling). */
export function hintsOn(config: OpstreamConfig): boolean {
  return config.serviceBus.hints && (config.serviceBus.connectionString !== undefined || config.serviceBus.namespace !== undefined);
}

/**
 * Wake-up hints in, when `serviceBus.hints` is on: each valid hint wakes the reader of the feed
 * range holding its partition key if this instance owns it, counted as woke, ignored (not owned
 * here) or invalid.
 */
export function startOperationHints(
  config: OpstreamConfig,
  deps: { access: ServiceBusAccess | undefined; metrics: OpstreamMetrics; logger: Logger; wake: (partitionKey: string) => WakeResult },
): OperationHintsReceiver | undefined {
  const { hintsEntity: entity, hintsSubscription: subscription, hintsMaxPollDelayMs } = config.serviceBus;
  const { access } = deps;
  if (!hintsOn(config) || !access) return undefined;
  const { metrics, logger } = deps;
  let receiver: OperationHintsReceiver;
  try {
    receiver = new OperationHintsReceiver({
      access,
      entity,
      subscription,
      logger,
      onHint: (hint) => {
        const woke = deps.wake(hint.partitionKey).woke;
        metrics.serviceBusReceived.inc({ entity: receiver.entityPath, outcome: woke ? 'woke' : 'ignored' });
        if (!woke)
          logger.debug('hint for a feed range this instance does not own; ignored', {
            operationId: hint.operationId,
            subscriptionId: hint.partitionKey,
          });
      },
      onInvalid: () => metrics.serviceBusReceived.inc({ entity: receiver.entityPath, outcome: 'invalid' }),
      onError: () => metrics.serviceBusFailures.inc({ entity: receiver.entityPath, operation: 'receive' }),
    });
  } catch (err) {
    throw unusableServiceBusSettings(access, err);
  }
  for (const outcome of ['woke', 'ignored', 'invalid']) metrics.serviceBusReceived.inc({ entity: receiver.entityPath, outcome }, 0);
  logger.info('receiving wake-up hints from Service Bus', { entity: receiver.entityPath, idlePollCeilingMs: hintsMaxPollDelayMs });
  return receiver;
}

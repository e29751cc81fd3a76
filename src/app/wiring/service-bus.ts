import type { OpstreamConfig } from '../../config/config-types';
import type { Logger } from '../../logging/logger';
import { connectServiceBus, serviceBusAuthOf } from '../../auth/service-bus-auth';
import type { ServiceBusAccess } from '../../service-bus/service-bus-access';
import type { DeadLettersRepository, OpstreamContainers } from '../../cosmos';
import type { OpstreamMetrics } from '../../ops/metrics';
import { announceDeadLetter } from '../../pipeline/dead-letter';
import type { PipelineEvents } from '../../pipeline/events';
import { startOperationEvents, type OperationEvents } from '../operation-events';
import { changefeedOptions } from './pipeline';

/**
 * Service Bus for the composition root: under Entra ID a first token is fetched here, before
 * anything starts, so that a missing identity stops start-up; `onFailure` undoes what came before.
 */
export async function connectServiceBusLogged(
  config: OpstreamConfig,
  { logger, onFailure }: { logger: Logger; onFailure: () => void },
): Promise<ServiceBusAccess | undefined> {
  const serviceBus = await connectServiceBus(config).catch((err: unknown) => {
    onFailure();
    throw err;
  });
  const auth = serviceBusAuthOf(config);
  if (auth) logger.info(`Service Bus auth: ${auth.kind === 'entra-id' ? 'Entra ID' : 'SAS key'}`, { ...auth });
  return serviceBus;
}

/**
 * Operation events out (when a namespace is configured): its own change-feed processor and leases on
 * Operations, so it starts, fails and catches up apart from the pipeline; a transition it sets aside
 * as a dead letter is announced on the pipeline's events like any other.
 */
export function wireOperationEvents(
  config: OpstreamConfig,
  deps: {
    access: ServiceBusAccess | undefined;
    containers: OpstreamContainers;
    instanceName: string;
    metrics: OpstreamMetrics;
    logger: Logger;
    deadLetters: DeadLettersRepository;
    events: PipelineEvents;
  },
): OperationEvents | undefined {
  const { containers, logger, events } = deps;
  return startOperationEvents(config, {
    access: deps.access,
    operationsContainer: containers.operations,
    leasesContainer: containers.leases,
    changefeed: changefeedOptions(config, deps.instanceName, logger),
    metrics: deps.metrics,
    logger,
    deadLetters: deps.deadLetters,
    onDeadLettered: (input, result) => {
      if (result.outcome === 'written') announceDeadLetter(events, input, result);
    },
  });
}

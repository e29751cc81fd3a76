import type { OpstreamConfig } from '../../config/config-types';
import type { Logger } from '../../logging/logger';
import { connectServiceBus, serviceBusAuthOf } from '../../auth/service-bus-auth';
import type { ServiceBusAccess } from '../../service-bus/service-bus-access';

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

import type { CosmosClient } from '@azure/cosmos';
import type { OpstreamConfig } from '../../config/config-types';
import { ConfigError } from '../../config/config-error';
import { ensureContainers, type OpstreamContainers } from '../../cosmos';
import { isRetriable } from '../../domain/errors';
import type { Logger } from '../../logging/logger';
import { authFailure, type CosmosAuth } from '../../auth/cosmos-auth';
import { retry, type BackoffPolicy } from '../../util/backoff';
import { connectCosmos, connectLeaseCosmos, type CosmosRequestObserver } from '../cosmos-client';
import { containerIds, leaseLocation } from '../container-layout';
import { checkDataAccess } from '../data-access-check';

/**
 * Cosmos DB for the composition root, in the two steps start-up takes with Service Bus between them
 * (a missing Service Bus identity stops start-up before any container is read): the clients, then
 * the containers. Every failure disposes the clients before it is thrown.
 */
export interface CosmosClients {
  main: { client: CosmosClient; auth: CosmosAuth };
  /** The leases' account (leases.endpoint), when it is another one. */
  lease?: { client: CosmosClient; auth: CosmosAuth };
  dispose(): void;
}

/** Start-up waits for a Cosmos DB that is briefly unavailable: about two minutes, then the error stands. */
const STARTUP_RETRY: BackoffPolicy = { retries: 12, initialDelayMs: 250, maxDelayMs: 15_000, multiplier: 2, jitter: 0.2 };

export async function connectCosmosClients(
  config: OpstreamConfig,
  { logger, onRequest }: { logger: Logger; onRequest: CosmosRequestObserver },
): Promise<CosmosClients> {
  const main = await connectCosmos(config, { onRequest });
  // The leases in another account (leases.endpoint): a client of their own, counted with the others.
  const lease = await connectLeaseCosmos(config, { onRequest }).catch((err: unknown) => {
    main.client.dispose();
    throw err;
  });
  const dispose = (): void => {
    main.client.dispose();
    lease?.client.dispose();
  };
  if ((main.auth.kind === 'entra-id' || lease?.auth.kind === 'entra-id') && config.cosmos.createContainers) {
    dispose();
    throw new ConfigError(
      'setting cosmos.createContainers needs key authentication: under Entra ID Cosmos DB refuses to create databases and containers (403, substatus 5300); deploy them with deploy/azure/main.bicep, or turn the switch off (--no-cosmos-create-containers)',
      'cosmos.createContainers',
    );
  }
  logger.info(`Cosmos DB auth: ${main.auth.kind === 'key' ? 'account key' : 'Entra ID'}`, {
    endpoint: main.auth.endpoint,
    reason: main.auth.reason,
  });
  if (lease)
    logger.info(`lease account auth: ${lease.auth.kind === 'key' ? 'account key' : 'Entra ID'}`, {
      endpoint: lease.auth.endpoint,
      reason: lease.auth.reason,
    });
  return { main, lease, dispose };
}

/**
 * The containers, checked (and created when `cosmos.createContainers`). A Cosmos DB that is briefly
 * unavailable (a 503, a restart) delays the start; a missing container, a refused key or identity
 * does not. Under Entra ID, an identity that may only read (or only elsewhere) stops start-up here
 * (exit 78), naming the role to assign.
 */
export async function openContainers(config: OpstreamConfig, clients: CosmosClients, logger: Logger): Promise<OpstreamContainers> {
  const { main, lease } = clients;
  const containers = await retry(
    () =>
      ensureContainers(main.client, config.cosmos.database, {
        create: config.cosmos.createContainers,
        logger,
        entraId: main.auth.kind === 'entra-id',
        ids: containerIds(config),
        leases: leaseLocation(
          config,
          { client: main.client, entraId: main.auth.kind === 'entra-id' },
          lease && { client: lease.client, entraId: lease.auth.kind === 'entra-id' },
        ),
      }),
    (err) => ({ retry: isRetriable(err) && authFailure(main.auth, err) === err }),
    STARTUP_RETRY,
    {
      onRetry: (err, attempt, delayMs) =>
        logger.warn('Cosmos DB not reachable at start-up; retrying', { attempt: attempt + 1, delayMs, error: (err as Error).message }),
    },
  ).catch((err: unknown) => {
    clients.dispose();
    const failure = authFailure(main.auth, err);
    throw failure === err && lease ? authFailure(lease.auth, err) : failure;
  });
  if (main.auth.kind === 'entra-id') {
    await checkDataAccess([containers.leases, containers.operations, containers.locks, containers.resources, containers.deadLetters]).catch(
      (err: unknown) => {
        clients.dispose();
        throw err;
      },
    );
  }
  return containers;
}

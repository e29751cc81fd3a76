import type { CosmosClient } from '@azure/cosmos';
import type { OpstreamConfig } from '../config/config-types';
import type { ContainerName, LeaseLocation } from '../cosmos/containers';

/**
 * The container names the settings give (cosmos.*Container, leases.container), as the Functions
 * trigger has containerName and leaseContainerName: what `ensureContainers` opens, and what the
 * KEDA ScaledObject and the Bicep template must name too.
 */
export function containerIds(config: Pick<OpstreamConfig, 'cosmos' | 'leases'>): Record<ContainerName, string> {
  const c = config.cosmos;
  return {
    operations: c.operationsContainer,
    resources: c.resourcesContainer,
    subscriptions: c.subscriptionsContainer,
    locks: c.locksContainer,
    deadLetters: c.deadLettersContainer,
    leases: config.leases.container,
  };
}

/** The database of the lease container: leases.database, else cosmos.database. */
export function leaseDatabaseId(config: Pick<OpstreamConfig, 'cosmos' | 'leases'>): string {
  return config.leases.database ?? config.cosmos.database;
}

/**
 * Where the lease container lives when not in the main database: the lease account's client when
 * one is configured, else the main client with another database; undefined when the leases sit
 * beside the other containers.
 */
export interface AccountClient {
  client: CosmosClient;
  entraId: boolean;
}

export function leaseLocation(
  config: Pick<OpstreamConfig, 'cosmos' | 'leases'>,
  main: AccountClient,
  lease?: AccountClient,
): LeaseLocation | undefined {
  const databaseId = leaseDatabaseId(config);
  if (lease) return { ...lease, databaseId };
  return databaseId === config.cosmos.database ? undefined : { ...main, databaseId };
}

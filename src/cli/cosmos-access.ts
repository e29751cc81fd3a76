import type { CosmosClient } from '@azure/cosmos';
import { AzureIdentityError } from '../auth/azure-credential';
import { authFailure, cosmosAuthOf, CosmosAccessDeniedError } from '../auth/cosmos-auth';
import { connectCosmos, connectLeaseCosmos } from '../app/cosmos-client';
import { containerIds, leaseLocation } from '../app/container-layout';
import { ConfigError } from '../config/config-error';
import type { OpstreamConfig } from '../config/config-types';
import { cosmosStatus, CosmosRequestError, ensureContainers, isRetriableCosmosFailure, type OpstreamContainers } from '../cosmos';
import { CliError, EXIT } from './exit-codes';

/**
 * Opens the configured Cosmos account for a one-shot command (`leases`, `lag`, `dead-letters`):
 * only verifies the containers, never creates them. A failure becomes one line with its exit
 * code: 69 when Cosmos cannot be reached or answers 5xx, 78 when the key or the identity is refused
 * or missing, or the database/containers are missing (something to fix in the configuration).
 */
export interface CosmosAccess {
  client: CosmosClient;
  containers: OpstreamContainers;
  close(): void;
}

export interface CosmosAccessOptions {
  /** A container that works but not as opstream would make it (another default TTL): the warning, with its fix. */
  onContainerWarning?: (warning: string) => void;
}

async function openCosmos(config: OpstreamConfig, options: CosmosAccessOptions = {}): Promise<CosmosAccess> {
  const { client, auth } = await connectCosmos(config);
  // The containers the settings name (cosmos.*Container), the leases where leases.* puts them: as `run` opens them.
  const lease = await connectLeaseCosmos(config).catch((err: unknown) => {
    client.dispose();
    throw err;
  });
  const close = (): void => {
    client.dispose();
    lease?.client.dispose();
  };
  try {
    const containers = await ensureContainers(client, config.cosmos.database, {
      create: false,
      entraId: auth.kind === 'entra-id',
      ...(options.onContainerWarning ? { onWarning: options.onContainerWarning } : {}),
      ids: containerIds(config),
      leases: leaseLocation(
        config,
        { client, entraId: auth.kind === 'entra-id' },
        lease && { client: lease.client, entraId: lease.auth.kind === 'entra-id' },
      ),
    });
    return { client, containers, close };
  } catch (err) {
    close();
    throw cosmosFailure(auth.endpoint, authFailure(auth, err));
  }
}

/** Opens Cosmos, runs `work`, closes; failures on the way are mapped as `openCosmos` maps them. */
export async function withCosmos<T>(
  config: OpstreamConfig,
  work: (access: CosmosAccess) => Promise<T>,
  options: CosmosAccessOptions = {},
): Promise<T> {
  const access = await openCosmos(config, options);
  const auth = cosmosAuthOf(config);
  try {
    return await work(access);
  } catch (err) {
    throw cosmosFailure(auth.endpoint, authFailure(auth, err));
  } finally {
    access.close();
  }
}

/** Maps a Cosmos failure (repository error or raw SDK error) to the CLI's exit codes; anything else passes. */
function cosmosFailure(endpoint: string, err: unknown): unknown {
  if (err instanceof CliError || err instanceof AzureIdentityError || err instanceof CosmosAccessDeniedError || err instanceof ConfigError)
    return err;
  const sdk = err instanceof CosmosRequestError ? err.cause : err;
  const status = err instanceof CosmosRequestError ? err.status : cosmosStatus(err);
  const code = (sdk as { code?: unknown } | undefined)?.code;
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  const network = typeof code === 'string' || (err instanceof CosmosRequestError && status === undefined);
  if (network || (status !== undefined && isRetriableCosmosFailure(sdk))) {
    return new CliError(`cannot reach Cosmos DB at ${endpoint}: ${message}`, EXIT.unavailable, { cause: err });
  }
  return err;
}

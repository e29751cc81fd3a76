import { CosmosClient } from '@azure/cosmos';
import { isLoopback } from '../config/load-config';

/**
 * The Cosmos client opstream uses. Against a loopback endpoint (the local emulator) there is no
 * region to discover or fail over to, so discovery and its background refresh are off.
 */
export function createCosmosClient(endpoint: string, key: string): CosmosClient {
  const local = isLoopback(new URL(endpoint).hostname);
  return new CosmosClient({
    endpoint,
    key,
    connectionPolicy: local
      ? {
          enableEndpointDiscovery: false,
          enableBackgroundEndpointRefreshing: false,
          enablePartitionLevelFailover: false,
          enablePartitionLevelCircuitBreaker: false,
        }
      : undefined,
  });
}

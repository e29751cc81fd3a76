/**
 * A Cosmos client for the harness's own traffic (frontend writes, reading results) that counts its
 * requests, so the emulator's counters minus this count are what the system under test sent.
 */
import { CosmosClient } from '@azure/cosmos';
import { createDefaultHttpClient, type HttpClient } from '@azure/core-rest-pipeline';

export interface CountingClient {
  readonly client: CosmosClient;
  requests(): number;
}

export function countingCosmosClient(endpoint: string, key: string): CountingClient {
  const inner = createDefaultHttpClient();
  let count = 0;
  const httpClient: HttpClient = {
    sendRequest: (request) => {
      count++;
      return inner.sendRequest(request);
    },
  };
  const client = new CosmosClient({
    endpoint,
    key,
    httpClient,
    connectionPolicy: {
      enableEndpointDiscovery: false,
      enableBackgroundEndpointRefreshing: false,
      enablePartitionLevelFailover: false,
      enablePartitionLevelCircuitBreaker: false,
      requestTimeout: 30_000,
      retryOptions: { maxRetryAttemptCount: 9, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 30 },
    },
  });
  return { client, requests: () => count };
}

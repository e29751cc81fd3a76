import type { CosmosClient } from '@azure/cosmos';

/**
 * The endpoint a CosmosClient was created with (from `endpoint` or the connection string): the host
 * of lease ids, as .NET takes it from `CosmosClient.Endpoint`. Never the SDK's write endpoint: on a
 * multi-region account that is the regional host (`account-westus.documents.azure.com`), which would
 * hide the leases from the .NET estimator, the KEDA scalers and `opstream leases`, and fork the lease
 * set at a regional failover. The JS SDK keeps the configured endpoint without a public getter.
 */
export function configuredEndpointOf(client: CosmosClient): string | undefined {
  const context = (client as unknown as { clientContext?: { cosmosClientOptions?: { endpoint?: unknown } } }).clientContext;
  const endpoint = context?.cosmosClientOptions?.endpoint;
  return typeof endpoint === 'string' && endpoint !== '' ? endpoint : undefined;
}

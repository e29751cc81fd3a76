import { Agent } from 'node:https';
import { CosmosClient, type CosmosClientOptions, type PartitionKeyDefinition, PartitionKeyDefinitionVersion } from '@azure/cosmos';
import type { CosmosEmulator } from './index';

/**
 * Client settings for the local emulator (plain http on loopback):
 * - `enableEndpointDiscovery: false`: talk to the given endpoint only; no region discovery, no
 *   background refresh timer keeping jest alive.
 * - `enablePartitionLevelFailover/CircuitBreaker: false`: nothing to fail over to.
 * - `requestTimeout: 30 s`: generous on a loaded 2-core machine.
 * - `retryOptions`: SDK retries 429s itself (honouring `x-ms-retry-after-ms`); keep the cap high enough
 *   for fault-injection tests.
 */
export function emulatorClientOptions(
  emu: Pick<CosmosEmulator, 'endpoint' | 'key'> & { caCertificate?: string },
  overrides: Partial<CosmosClientOptions> = {},
): CosmosClientOptions {
  return {
    endpoint: emu.endpoint,
    key: emu.key,
    // An emulator serving HTTPS (`tls: true`) has its own self-signed certificate: trust it.
    ...(emu.caCertificate ? { agent: new Agent({ ca: emu.caCertificate, keepAlive: true }) } : {}),
    ...overrides,
    connectionPolicy: {
      enableEndpointDiscovery: false,
      enableBackgroundEndpointRefreshing: false,
      enablePartitionLevelFailover: false,
      enablePartitionLevelCircuitBreaker: false,
      requestTimeout: 30_000,
      retryOptions: { maxRetryAttemptCount: 9, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 30 },
      ...overrides.connectionPolicy,
    },
  };
}

export function emulatorClient(emu: Pick<CosmosEmulator, 'endpoint' | 'key'>, overrides: Partial<CosmosClientOptions> = {}): CosmosClient {
  return new CosmosClient(emulatorClientOptions(emu, overrides));
}

/**
 * A single-path partition key hashed with version 2. A container created without a version is
 * version 1 (on the service, and on the emulator as on the service): tests and benchmarks that
 * reason about v2 EPKs or v2 range bounds ("" | 10 | 20 | 30 | FF) say so with this.
 */
export function hashV2Key(path: string): PartitionKeyDefinition {
  return { paths: [path], version: PartitionKeyDefinitionVersion.V2 };
}

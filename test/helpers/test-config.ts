import { loadConfig } from '../../src/config/load-config';
import type { OpstreamConfig } from '../../src/config/config-types';
import { instanceSettings } from '@opstream/local-stack';

/** Clusters Service phases short enough for end-to-end tests. */
export const FAST_CS_DURATIONS = {
  pendingMs: 40,
  validatingMs: 40,
  installingMs: 80,
  updatingMs: 80,
  deleteStartMs: 40,
  uninstallingMs: 80,
};

/**
 * The configuration of an opstream instance under test: the local servers' endpoints and short
 * lease and follow intervals, set through configuration like an operator would.
 */
export function testConfig(
  endpoints: { cosmosEndpoint: string; cosmosKey: string; databaseId: string; csUrl: string; csToken?: string },
  settings: Record<string, unknown> = {},
): OpstreamConfig {
  return loadConfig({
    env: {},
    flags: {
      ...instanceSettings({
        cosmosEndpoint: endpoints.cosmosEndpoint,
        cosmosKey: endpoints.cosmosKey,
        database: endpoints.databaseId,
        clustersServiceUrl: endpoints.csUrl,
        clustersServiceToken: endpoints.csToken,
      }),
      // Also bounds how long a Delete racing an unrecorded create waits (twice this).
      'clustersService.timeoutMs': 2000,
      'changefeed.leaseAcquireIntervalMs': 300,
      'changefeed.leaseRenewIntervalMs': 500,
      'changefeed.leaseExpirationMs': 3000,
      'changefeed.startFrom': 'beginning',
      // Reaction these tests wait for: every range polled at 100 ms, quiet or not (the default is 1 s when quiet).
      'changefeed.maxPollDelayMs': 100,
      'follow.initialDelayMs': 50,
      'follow.maxDelayMs': 400,
      'follow.batchTickMs': 50,
      'locks.ttlMs': 5000,
      'ops.addr': '127.0.0.1:0',
      ...settings,
    },
  });
}

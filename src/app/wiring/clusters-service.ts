import { ClustersServiceClient } from '../../clusters-service';
import { tokenFromFile } from '../../clusters-service/token-file';
import { ConfigError } from '../../config/config-error';
import type { OpstreamConfig } from '../../config/config-types';
import type { Logger } from '../../logging/logger';
import type { OpstreamMetrics } from '../../ops/metrics';

/** The Clusters Service client, its calls counted and timed. */
export function wireClustersService(
  config: OpstreamConfig,
  { logger, metrics }: { logger: Logger; metrics: OpstreamMetrics },
): ClustersServiceClient {
  return new ClustersServiceClient({
    baseUrl: required(config.clustersService.url, 'clustersService.url'),
    token: config.clustersService.tokenFile ? csTokenFile(config.clustersService.tokenFile) : config.clustersService.token,
    requestTimeoutMs: config.clustersService.timeoutMs,
    logger,
    onCall: (e) => {
      metrics.csCalls.inc({ endpoint: e.endpoint, status: String(e.status) });
      metrics.csCallDuration.observe({ endpoint: e.endpoint }, e.durationMs / 1000);
    },
  });
}

/** The token file, whose first read failing is a configuration error (exit 78) naming the setting. */
function csTokenFile(file: string): () => string {
  try {
    return tokenFromFile(file);
  } catch (err) {
    throw new ConfigError(
      `setting clustersService.tokenFile (${file}): ${(err as Error).message} (OPSTREAM_CLUSTERS_SERVICE_TOKEN_FILE)`,
      'clustersService.tokenFile',
    );
  }
}

function required(value: string | undefined, setting: string): string {
  if (!value) throw new Error(`setting ${setting} is required`);
  return value;
}

import type { OpstreamConfig } from '../../config/config-types';
import type { Logger } from '../../logging/logger';
import { startTracing, type Tracing } from '../tracing';

/** Tracing, started first so that every span of the start-up goes out (off, at no cost, unless asked for), and announced. */
export async function wireTracing(
  config: OpstreamConfig,
  { instanceName, logger }: { instanceName: string; logger: Logger },
): Promise<Tracing | undefined> {
  const tracing = await startTracing(config, { instanceName, logger });
  if (tracing) {
    const to = [
      tracing.target.url ? `${tracing.target.url} (OTLP ${tracing.target.protocol})` : '',
      tracing.target.console ? 'standard output' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    logger.info(`tracing on: spans to ${to}`, { source: tracing.target.source });
  }
  return tracing;
}

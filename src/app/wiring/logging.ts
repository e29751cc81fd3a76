import type { OpstreamConfig } from '../../config/config-types';
import { unknownVariables, unknownVariableWarning } from '../../config/nearest-setting';
import { createLogger, type Logger } from '../../logging/logger';
import { guardUnhandledRxjsErrors } from '../../ops/taps';

/** The instance's logger (or the caller's), every line naming the instance; start-up warnings said once. */
export function wireLogger(config: OpstreamConfig, instanceName: string, given?: Logger): Logger {
  const logger = (given ?? createLogger({ level: config.log.level, format: config.log.format })).child({ instanceName });
  guardUnhandledRxjsErrors((err) => logger.error('a stream subscriber threw', { error: (err as Error)?.message ?? String(err) }));
  // Ignored, so a typo would leave the default in force unnoticed: say so, with the setting it likely meant.
  for (const unknown of unknownVariables(process.env))
    logger.warn(unknownVariableWarning(unknown), { variable: unknown.name, nearest: unknown.nearest?.env });
  return logger;
}

/**
 * What the processor needs of a logger: levelled lines with structured fields, and child loggers
 * that carry a lease's context. winston, pino and bunyan loggers all fit it as they are, so the
 * package depends on none of them.
 */
export interface ChangeFeedLogger {
  error(message: string, fields?: Record<string, unknown>): unknown;
  warn(message: string, fields?: Record<string, unknown>): unknown;
  info(message: string, fields?: Record<string, unknown>): unknown;
  debug(message: string, fields?: Record<string, unknown>): unknown;
  /** A logger whose lines all carry `fields`; optional: without it the parent's lines are used. */
  child?(fields: Record<string, unknown>): ChangeFeedLogger;
}

/** The default when the caller passes no logger: every line is dropped. */
export const silentLogger: ChangeFeedLogger = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};

/** `logger.child(fields)`, or `logger` itself when it has no children. */
export function childLogger(logger: ChangeFeedLogger, fields: Record<string, unknown>): ChangeFeedLogger {
  return logger.child?.(fields) ?? logger;
}

import { trace } from '@opentelemetry/api';
import winston from 'winston';
import { redactField, redactString } from './redact';

/**
 * Structured logs: JSON lines when not on a terminal (production), colourised readable lines on a
 * terminal. Child loggers carry context (operationId, subscription, resource, leaseToken) so every
 * line about an operation says which one. Secrets are masked before formatting.
 */
export type Logger = winston.Logger;

export interface LoggerOptions {
  /** error | warn | info | debug. @defaultValue env OPSTREAM_LOG_LEVEL or "info" */
  level?: string;
  /** "json" | "pretty". @defaultValue env OPSTREAM_LOG_FORMAT, else pretty on a TTY, json otherwise */
  format?: 'json' | 'pretty';
  /** Silence everything (tests). */
  silent?: boolean;
  /** Extra fields on every line. */
  defaultMeta?: Record<string, unknown>;
  /** Where lines go. @defaultValue stderr for pretty and json */
  stream?: NodeJS.WritableStream;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    const value = info[key];
    info[key] = key === 'message' && typeof value === 'string' ? redactString(value) : redactField(key, value);
  }
  return info;
});

/**
 * The active span's trace and span ids on every line written within a handling (when tracing is
 * on), so a log line leads to its trace and back.
 */
const traceIds = winston.format((info) => {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) {
    const { traceId, spanId } = span.spanContext();
    info.traceId = traceId;
    info.spanId = spanId;
  }
  return info;
});

/**
 * Drops a line below the logger's level before any formatting: winston formats every line and
 * filters by level only in the transport, so a debug line carrying a document would otherwise be
 * copied and serialised for nothing.
 */
const levelGate = winston.format((info, opts: unknown) => {
  const enabled = (opts as { enabled?: (level: string) => boolean } | undefined)?.enabled;
  return enabled === undefined || enabled(info.level) ? info : false;
});

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? process.env.OPSTREAM_LOG_LEVEL ?? 'info';
  const envFormat = process.env.OPSTREAM_LOG_FORMAT;
  const format = options.format ?? (envFormat === 'json' || envFormat === 'pretty' ? envFormat : process.stderr.isTTY ? 'pretty' : 'json');
  const pretty = winston.format.combine(
    winston.format.colorize(),
    winston.format.printf((info) => {
      const { level: lvl, message, timestamp, ...rest } = info;
      const meta = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
      return `${String(timestamp)} ${lvl} ${String(message)}${meta}`;
    }),
  );
  const stream = options.stream ?? process.stderr;
  const gate: { enabled?: (level: string) => boolean } = {};
  const logger = winston.createLogger({
    level,
    silent: options.silent ?? (options.stream ? false : process.env.OPSTREAM_LOG_SILENT === '1'),
    defaultMeta: options.defaultMeta,
    format: winston.format.combine(
      levelGate(gate),
      traceIds(),
      winston.format.errors({ stack: true }),
      redactFormat(),
      winston.format.timestamp(),
      format === 'json' ? winston.format.json() : pretty,
    ),
    transports: [new winston.transports.Stream({ stream })],
  });
  gate.enabled = (lvl) => logger.isLevelEnabled(lvl);
  return logger;
}

/** A logger that drops everything: the default for library components whose caller passes none. */
export function silentLogger(): Logger {
  return createLogger({ silent: true });
}

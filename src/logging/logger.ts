import { trace } from '@opentelemetry/api';
import winston from 'winston';
import { redactField, redactString } from './redact';

/**
 * Structured logs: JSON lines, one object a line, when the log stream is not a terminal
 * (production, pipes, files); readable lines on a terminal, coloured unless NO_COLOR is set (or
 * TERM=dumb). Child loggers carry context (operationId, subscription, resource, leaseToken) so every
 * line about an operation says which one. Secrets are masked before formatting.
 */
export type Logger = winston.Logger;

export interface LoggerOptions {
  /** error | warn | info | debug. @defaultValue env OPSTREAM_LOG_LEVEL or "info" */
  level?: string;
  /** "json" | "pretty". @defaultValue env OPSTREAM_LOG_FORMAT, else pretty when `stream` is a TTY, json otherwise */
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

/** The format lines get: the one asked for, else OPSTREAM_LOG_FORMAT, else readable on a terminal and JSON elsewhere. */
export function logFormat(
  format?: 'json' | 'pretty',
  stream: NodeJS.WritableStream = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): 'json' | 'pretty' {
  const envFormat = env.OPSTREAM_LOG_FORMAT;
  return format ?? (envFormat === 'json' || envFormat === 'pretty' ? envFormat : isTty(stream) ? 'pretty' : 'json');
}

/** Colours on readable lines: only on a terminal, never with NO_COLOR (any value) or TERM=dumb (no-color.org). */
function logColours(stream: NodeJS.WritableStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  return isTty(stream) && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

function isTty(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

const LEVEL_COLOURS: Record<string, number> = { error: 31, warn: 33, info: 32, debug: 34 };

/**
 * A readable line: time of day, level, message, then the fields as key=value (strings quoted when
 * they hold spaces), on one line whatever a field holds, so lines from several writers on one
 * terminal never break into each other.
 */
function readableLine(info: winston.Logform.TransformableInfo, colour: boolean): string {
  const { level, message, timestamp, ...rest } = info;
  const paint = (code: number, text: string): string => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const time = String(timestamp).slice(11, 23);
  const fields = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/[\s"=]/.test(v) ? v : JSON.stringify(v)}`)
    .join(' ');
  const text = String(message).replace(/\r?\n/g, '\\n');
  return `${paint(90, time)} ${paint(LEVEL_COLOURS[level] ?? 0, level.padEnd(5))} ${text}${fields ? ` ${paint(90, fields.replace(/\r?\n/g, '\\n'))}` : ''}`;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? process.env.OPSTREAM_LOG_LEVEL ?? 'info';
  const stream = options.stream ?? process.stderr;
  const format = logFormat(options.format, stream);
  const colour = logColours(stream);
  const pretty = winston.format.printf((info) => readableLine(info, colour));
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

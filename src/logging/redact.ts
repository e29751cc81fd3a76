/**
 * Secrets never reach a log line: keys whose names look secret are masked, and values that look
 * like Cosmos master keys, bearer tokens or SAS signatures are masked wherever they appear.
 */
const SECRET_KEY = /(key|secret|token|password|authorization|sig|sas|connectionstring)$/i;
const SECRET_VALUE: RegExp[] = [
  /(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/g,
  /((?:AccountKey|SharedAccessKey|sig)=)[^;&\s"]+/gi,
  /(type=master&ver=1\.0&sig=)[^&\s"]+/gi,
];
/** Identifiers that merely end like a secret name. */
const NOT_SECRET = new Set(['leasetoken', 'continuationtoken', 'continuation', 'partitionkey', 'resumetoken']);
const MASK = '***';

export function redactString(value: string): string {
  let out = value;
  for (const re of SECRET_VALUE) out = out.replace(re, `$1${MASK}`);
  return out;
}

/** Redacts one named field: the name decides first, then the value's content. */
export function redactField(key: string, value: unknown, depth = 0): unknown {
  return SECRET_KEY.test(key) && !NOT_SECRET.has(key.toLowerCase()) && value !== undefined && value !== null && value !== '' ? MASK : redact(value, depth);
}

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) return { name: value.name, message: redactString(value.message), stack: value.stack && redactString(value.stack) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = redactField(k, v, depth + 1);
  }
  return out;
}

/**
 * Secrets never reach a log line: keys whose names look secret are masked, and values that look
 * like Cosmos master keys, bearer tokens, SAS signatures or credentials in a URL are masked wherever
 * they appear.
 *
 * Redaction also bounds what a line can carry, since log fields may come from documents (a
 * resource id that is an object nested thousands of levels deep, a 2 MB string): the copy stops
 * at `MAX_DEPTH` levels, `MAX_MEMBERS` members per object or array and `MAX_STRING` characters
 * per string, each cut marked (`[…]`), so formatting a line never overflows the stack.
 */
const SECRET_KEY = /(key|secret|token|password|authorization|sig|sas|connectionstring)$/i;
const SECRET_VALUE: RegExp[] = [
  /(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/g,
  /((?:AccountKey|SharedAccessKey|sig)=)[^;&\s"]+/gi,
  /(type=master&ver=1\.0&sig=)[^&\s"]+/gi,
  // Credentials in a URL (`https://user:secret@host`): the password, or a user part alone (often a token).
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"']*:)[^\s/?#@"']+(?=@)/gi,
  /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@:"']+(?=@)/gi,
];
/** Identifiers that merely end like a secret name. */
const NOT_SECRET = new Set(['leasetoken', 'continuationtoken', 'continuation', 'partitionkey', 'resumetoken']);
const MASK = '***';

/** Levels below the field itself that are copied; deeper values become DEPTH_MARKER. */
const MAX_DEPTH = 8;
export const MAX_MEMBERS = 100;
export const MAX_STRING = 16 * 1024;
export const DEPTH_MARKER = '[… nested deeper]';

export function redactString(value: string): string {
  const text = value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}[… ${value.length - MAX_STRING} more characters]` : value;
  let out = text;
  for (const re of SECRET_VALUE) out = out.replace(re, `$1${MASK}`);
  return out;
}

function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) && !NOT_SECRET.has(key.toLowerCase());
}

/** Redacts one named field: the name decides first, then the value's content. */
export function redactField(key: string, value: unknown, depth = 0): unknown {
  return isSecretKey(key) && value !== undefined && value !== null && value !== '' ? MASK : redact(value, depth);
}

/** A redacted, bounded copy of `value` (recursion is bounded by MAX_DEPTH). Never throws. */
export function redact(value: unknown, depth = 0): unknown {
  try {
    return redactUnsafe(value, depth);
  } catch {
    return '[unloggable value]';
  }
}

function redactUnsafe(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error)
    return { name: value.name, message: redactString(String(value.message)), stack: value.stack && redactString(value.stack) };
  if (value instanceof Date) return value;
  if (depth >= MAX_DEPTH) return DEPTH_MARKER;
  if (Array.isArray(value)) {
    const out = value.slice(0, MAX_MEMBERS).map((v) => redactUnsafe(v, depth + 1));
    if (value.length > MAX_MEMBERS) out.push(`[… ${value.length - MAX_MEMBERS} more items]`);
    return out;
  }
  const out: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (const k of keys.slice(0, MAX_MEMBERS)) {
    const v = (value as Record<string, unknown>)[k];
    const copy = isSecretKey(k) && v !== undefined && v !== null && v !== '' ? MASK : redactUnsafe(v, depth + 1);
    if (k === '__proto__') Object.defineProperty(out, k, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[k] = copy;
  }
  if (keys.length > MAX_MEMBERS) out['…'] = `[… ${keys.length - MAX_MEMBERS} more members]`;
  return out;
}

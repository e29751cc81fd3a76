/**
 * Cosmos SQL date and time functions over ISO 8601 UTC strings (`YYYY-MM-DDThh:mm:ss.fffffffZ`, 100 ns
 * ticks) and Unix millisecond timestamps. A malformed date or part name gives undefined, as the service.
 */
interface Instant {
  /** Milliseconds since the Unix epoch. */
  ms: number;
  /** 100 ns ticks within that millisecond, 0 … 9999. */
  ticks: number;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?)?(Z)?$/;

/** Date.UTC, but years 0–99 are years 0–99 (Date.UTC reads them as 1900–1999). */
function utc(year: number, month: number, day: number, hours = 0, minutes = 0, seconds = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(hours, minutes, seconds, 0);
  return date.getTime();
}

function parse(value: unknown): Instant | undefined {
  if (typeof value !== 'string') return undefined;
  const m = ISO.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number);
  const frac = (m[7] ?? '').padEnd(7, '0');
  const ms = utc(y, mo - 1, d, h, mi, s) + Number(frac.slice(0, 3));
  const check = new Date(ms);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59)
    return undefined;
  return { ms, ticks: Number(frac.slice(3)) };
}

function format(t: Instant): string | undefined {
  const date = new Date(t.ms);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return undefined;
  const iso = date.toISOString(); // YYYY-MM-DDThh:mm:ss.sssZ
  return `${iso.slice(0, 23)}${String(t.ticks).padStart(4, '0')}Z`;
}

const PARTS: Record<string, string> = {
  year: 'year',
  yyyy: 'year',
  yy: 'year',
  month: 'month',
  mm: 'month',
  m: 'month',
  day: 'day',
  dd: 'day',
  d: 'day',
  hour: 'hour',
  hh: 'hour',
  minute: 'minute',
  mi: 'minute',
  n: 'minute',
  second: 'second',
  ss: 'second',
  s: 'second',
  millisecond: 'millisecond',
  ms: 'millisecond',
  microsecond: 'microsecond',
  mcs: 'microsecond',
  nanosecond: 'nanosecond',
  ns: 'nanosecond',
};
/** 100 ns ticks per unit (exact: BigInt, since ticks since 1970 pass 2^53). */
const TICKS_PER: Record<string, bigint> = {
  day: BigInt(864e9),
  hour: BigInt(36e9),
  minute: BigInt(6e8),
  second: BigInt(1e7),
  millisecond: BigInt(1e4),
  microsecond: BigInt(10),
};
const TEN_THOUSAND = BigInt(1e4);

const part = (p: unknown): string | undefined => (typeof p === 'string' ? PARTS[p.toLowerCase()] : undefined);
const totalTicks = (t: Instant): bigint => BigInt(t.ms) * TEN_THOUSAND + BigInt(t.ticks);
/** Floor division (BigInt division truncates towards zero). */
const floorDiv = (a: bigint, b: bigint): bigint => (a % b !== BigInt(0) && a < BigInt(0) !== b < BigInt(0) ? a / b - BigInt(1) : a / b);
const fromTicks = (n: bigint): Instant => {
  const ms = floorDiv(n, TEN_THOUSAND);
  return { ms: Number(ms), ticks: Number(n - ms * TEN_THOUSAND) };
};

function addMonths(t: Instant, months: number): Instant {
  const d = new Date(t.ms);
  const target = new Date(utc(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const lastDay = new Date(utc(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay)); // 31 Jan + 1 month = 28/29 Feb, as .NET
  return { ms: target.getTime() + (t.ms - utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())), ticks: t.ticks };
}

export function dateTimeAdd(p: unknown, n: unknown, dt: unknown): string | undefined {
  const which = part(p);
  const t = parse(dt);
  if (!which || !t || typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  const whole = Math.trunc(n);
  if (which === 'year') return format(addMonths(t, whole * 12));
  if (which === 'month') return format(addMonths(t, whole));
  if (Math.abs(whole) > 1e15) return undefined;
  const delta = which === 'nanosecond' ? BigInt(Math.trunc(whole / 100)) : BigInt(whole) * TICKS_PER[which];
  return format(fromTicks(totalTicks(t) + delta));
}

export function dateTimePart(p: unknown, dt: unknown): number | undefined {
  const which = part(p);
  const t = parse(dt);
  if (!which || !t) return undefined;
  const d = new Date(t.ms);
  const subSecondTicks = d.getUTCMilliseconds() * 1e4 + t.ticks;
  switch (which) {
    case 'year':
      return d.getUTCFullYear();
    case 'month':
      return d.getUTCMonth() + 1;
    case 'day':
      return d.getUTCDate();
    case 'hour':
      return d.getUTCHours();
    case 'minute':
      return d.getUTCMinutes();
    case 'second':
      return d.getUTCSeconds();
    case 'millisecond':
      return d.getUTCMilliseconds();
    case 'microsecond':
      return Math.floor(subSecondTicks / 10);
    default:
      return subSecondTicks * 100;
  }
}

/** Boundaries of `part` crossed from `start` to `end` (signed), as the service counts them. */
export function dateTimeDiff(p: unknown, start: unknown, end: unknown): number | undefined {
  const which = part(p);
  const a = parse(start);
  const b = parse(end);
  if (!which || !a || !b) return undefined;
  const da = new Date(a.ms);
  const db = new Date(b.ms);
  if (which === 'year') return db.getUTCFullYear() - da.getUTCFullYear();
  if (which === 'month') return (db.getUTCFullYear() - da.getUTCFullYear()) * 12 + db.getUTCMonth() - da.getUTCMonth();
  if (which === 'nanosecond') return Number(totalTicks(b) - totalTicks(a)) * 100;
  const unit = TICKS_PER[which];
  return Number(floorDiv(totalTicks(b), unit) - floorDiv(totalTicks(a), unit));
}

export function dateTimeFromParts(...args: unknown[]): string | undefined {
  if (args.length < 3 || args.some((a) => typeof a !== 'number' || !Number.isInteger(a))) return undefined;
  const [y, mo, d, h = 0, mi = 0, s = 0, frac = 0] = args as number[];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59 || frac < 0 || frac > 9_999_999) return undefined;
  const text = `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(frac).padStart(7, '0')}Z`;
  return parse(text) ? text : undefined;
}

export function dateTimeToTimestamp(dt: unknown): number | undefined {
  return parse(dt)?.ms;
}

export function timestampToDateTime(ms: unknown): string | undefined {
  return typeof ms === 'number' && Number.isFinite(ms) ? format({ ms: Math.trunc(ms), ticks: 0 }) : undefined;
}

/** GetCurrentDateTime for `nowMs` (one value per query, as on the service). */
export function currentDateTime(nowMs: number): string {
  return format({ ms: nowMs, ticks: 0 }) ?? new Date(nowMs).toISOString();
}

/** .NET ticks (100 ns since 0001-01-01) at the Unix epoch. */
const EPOCH_TICKS = BigInt('621355968000000000');

/** Ticks as a JSON number: past 2^53 it is the double a client parsing the service's int64 gets too. */
export function dateTimeToTicks(dt: unknown): number | undefined {
  const t = parse(dt);
  return t ? Number(totalTicks(t) + EPOCH_TICKS) : undefined;
}

export function ticksToDateTime(ticks: unknown): string | undefined {
  if (typeof ticks !== 'number' || !Number.isFinite(ticks) || Math.abs(ticks) > 1e19) return undefined;
  return format(fromTicks(BigInt(Math.trunc(ticks)) - EPOCH_TICKS));
}

export function currentTicks(nowMs: number): number {
  return Number(BigInt(nowMs) * TEN_THOUSAND + EPOCH_TICKS);
}

/**
 * DateTimeBin(dt, part, size = 1, origin = 1970-01-01): the start of the `size`-`part` bin holding
 * `dt`, counted from `origin`; days and smaller parts only (a year or month bin → undefined).
 */
export function dateTimeBin(
  dtValue: unknown,
  p: unknown,
  size: unknown = 1,
  origin: unknown = '1970-01-01T00:00:00.0000000Z',
): string | undefined {
  const which = part(p);
  const t = parse(dtValue);
  const o = parse(origin);
  if (!which || !t || !o || which === 'year' || which === 'month') return undefined;
  if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0 || size > 1e12) return undefined;
  const width = which === 'nanosecond' ? BigInt(Math.max(1, Math.trunc(size / 100))) : TICKS_PER[which] * BigInt(size);
  const from = totalTicks(o);
  return format(fromTicks(from + floorDiv(totalTicks(t) - from, width) * width));
}

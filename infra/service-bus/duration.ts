/**
 * ISO 8601 durations as Service Bus writes them (.NET's XmlConvert of a TimeSpan): `PT1M`, `P14D`,
 * `PT0.5S`, and TimeSpan.MaxValue `P10675199DT2H48M5.4775807S` for "unbounded" (Infinity here).
 */
export const MAX_TIMESPAN = 'P10675199DT2H48M5.4775807S';

export class DurationError extends Error {}

/** ISO 8601 duration → milliseconds (TimeSpan.MaxValue and anything of as many days is Infinity). */
export function parseDuration(text: string): number {
  const t = text.trim();
  const m = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(t);
  if (!m || t === 'P' || t.endsWith('T')) throw new DurationError(`${JSON.stringify(text)} is not an ISO 8601 duration such as PT1M`);
  const [d, h, mi, s] = m.slice(1).map((x) => (x ? Number(x) : 0));
  const ms = ((d * 24 + h) * 60 + mi) * 60_000 + s * 1000;
  return d >= 10675199 ? Infinity : Math.round(ms);
}

/** Milliseconds → the ISO 8601 duration the service answers (`PT0S` for zero). */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return MAX_TIMESPAN;
  let rest = Math.max(0, Math.round(ms));
  const days = Math.floor(rest / 86_400_000);
  rest -= days * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  const time = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds ? `${seconds}S` : ''}`;
  if (!days && !time) return 'PT0S';
  return `P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
}

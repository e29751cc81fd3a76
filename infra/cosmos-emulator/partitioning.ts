/**
 * Effective-partition-key space arithmetic. Hashes start with 00–3F (the top two bits are cleared),
 * the range space runs from "" to "FF"; boundaries are upper-case hex compared as strings, with
 * trailing "00" pairs trimmed so 4 ranges read "" | "10" | "20" | "30" | "FF".
 */
import { decodeNumberV1, v1Bound } from './hash-v1';

export const MIN_EPK = '';
export const MAX_EPK = 'FF';
const HEX_DIGITS = 32;
/** Exclusive upper bound of every hash: 0x40 followed by zeros. */
const HASH_SPACE_END = BigInt(0x40) << BigInt(120);

export interface RangeBounds {
  min: string;
  max: string;
}

export function epkToBigInt(epk: string): bigint {
  if (epk === MIN_EPK) return BigInt(0);
  if (epk === MAX_EPK) return HASH_SPACE_END;
  return BigInt('0x' + epk.padEnd(HEX_DIGITS, '0').slice(0, HEX_DIGITS));
}

export function bigIntToEpk(value: bigint): string {
  if (value <= BigInt(0)) return MIN_EPK;
  if (value >= HASH_SPACE_END) return MAX_EPK;
  let hex = value.toString(16).toUpperCase().padStart(HEX_DIGITS, '0');
  while (hex.length > 2 && hex.endsWith('00')) hex = hex.slice(0, -2);
  return hex;
}

/** `count` contiguous ranges covering "" … "FF", evenly over the hash space of `version`. */
export function initialBounds(count: number, version: 1 | 2 = 2): RangeBounds[] {
  if (version === 1) return initialBoundsV1(count);
  const bounds: RangeBounds[] = [];
  for (let i = 0; i < count; i++) {
    const min = i === 0 ? MIN_EPK : bigIntToEpk((HASH_SPACE_END * BigInt(i)) / BigInt(count));
    const max = i === count - 1 ? MAX_EPK : bigIntToEpk((HASH_SPACE_END * BigInt(i + 1)) / BigInt(count));
    bounds.push({ min, max });
  }
  return bounds;
}

/** The midpoint used to split a range in two, or undefined when the range cannot be halved. */
export function splitPoint(range: RangeBounds, version: 1 | 2 = 2): string | undefined {
  if (version === 1) return splitPointV1(range);
  const lo = epkToBigInt(range.min);
  const hi = epkToBigInt(range.max);
  if (hi - lo < BigInt(2)) return undefined;
  const mid = bigIntToEpk(lo + (hi - lo) / BigInt(2));
  return mid > range.min && (range.max === MAX_EPK || mid < range.max) ? mid : undefined;
}

export function epkInRange(epk: string, min: string, max: string): boolean {
  return epk >= min && (max === MAX_EPK || epk < max);
}

/** Whether [aMin, aMax) and [bMin, bMax) overlap. */
export function rangesOverlap(aMin: string, aMax: string, bMin: string, bMax: string): boolean {
  const aEndsAfterBStarts = aMax === MAX_EPK || aMax > bMin;
  const bEndsAfterAStarts = bMax === MAX_EPK || bMax > aMin;
  return aEndsAfterBStarts && bEndsAfterAStarts;
}

/**
 * Hash v1: every EPK starts with the encoded 32-bit hash, so bounds are encoded hashes spread evenly
 * over 0 … 2^32 and a split halves the hash interval between its bounds.
 */
const V1_HASHES = 2 ** 32;

function initialBoundsV1(count: number): RangeBounds[] {
  const at = (i: number): string => (i === 0 ? MIN_EPK : i === count ? MAX_EPK : v1Bound(Math.floor((V1_HASHES * i) / count)));
  return Array.from({ length: count }, (_, i) => ({ min: at(i), max: at(i + 1) }));
}

function splitPointV1(range: RangeBounds): string | undefined {
  const lo = range.min === MIN_EPK ? 0 : decodeNumberV1(range.min);
  const hi = range.max === MAX_EPK ? V1_HASHES : decodeNumberV1(range.max);
  if (lo === undefined || hi === undefined || !Number.isInteger(lo) || !Number.isInteger(hi) || hi - lo < 2) return undefined;
  return v1Bound(lo + Math.floor((hi - lo) / 2));
}

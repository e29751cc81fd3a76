import murmur from 'murmurhash3js-revisited';
import { PkComponent } from './types';

/**
 * Effective partition key, hash version 1 (containers created with `partitionKey.version` 1), as the
 * service and `@azure/cosmos` compute it: MurmurHash3 x86 32-bit (seed 0) over the hashing encoding of
 * the key, then the binary encoding of [hash as a number, key] as upper-case hex. Strings count only
 * their first 100 UTF-16 units, so longer keys that share them share a logical partition's EPK.
 * Every v1 EPK starts with `05` (the hash is a number); range bounds are encoded hashes.
 */
const MAX_STRING_CHARS = 100;
const TWO_64 = BigInt(1) << BigInt(64);
const SIGN = BigInt(1) << BigInt(63);
const BYTE = BigInt(0xff);

/** Bytes that are hashed: type byte, then UTF-8 + 0x00 (string) or float64 little-endian (number). */
function hashingBytes(value: PkComponent): Buffer {
  if (typeof value === 'string')
    return Buffer.concat([Buffer.from([0x08]), Buffer.from(value.substring(0, MAX_STRING_CHARS), 'utf8'), Buffer.from([0x00])]);
  if (typeof value === 'number') {
    const bytes = Buffer.alloc(9);
    bytes[0] = 0x05;
    bytes.writeDoubleLE(value, 1);
    return bytes;
  }
  return Buffer.from([scalarByte(value)]);
}

function scalarByte(value: PkComponent): number {
  if (value === true) return 0x03;
  if (value === false) return 0x02;
  if (value === null) return 0x01;
  return 0x00;
}

/** Order-preserving number encoding: sign-adjusted IEEE bits, one whole byte, then 7-bit groups. */
export function encodeNumberV1(value: number): Buffer {
  const raw = new DataView(new ArrayBuffer(8));
  raw.setFloat64(0, value);
  const bits = raw.getBigUint64(0);
  let rest = bits < SIGN ? bits ^ SIGN : (TWO_64 - bits) % TWO_64;
  const out = [0x05, Number((rest >> BigInt(56)) & BYTE)];
  rest = (rest << BigInt(8)) % TWO_64;
  // Each group byte carries 7 payload bits and a low "more follows" bit; the last one clears it.
  const groups: number[] = [];
  do {
    groups.push(Number((rest >> BigInt(56)) & BYTE) | 1);
    rest = (rest << BigInt(7)) % TWO_64;
  } while (rest !== BigInt(0));
  groups[groups.length - 1] &= 0xfe;
  for (const g of groups) if (g !== 0) out.push(g);
  return Buffer.from(out);
}

/** Inverse of `encodeNumberV1` for a bound that is exactly one encoded number; undefined otherwise. */
export function decodeNumberV1(hex: string): number | undefined {
  if (!/^05([0-9A-F]{2})+$/i.test(hex)) return undefined;
  const bytes = Buffer.from(hex, 'hex');
  let payload = BigInt(bytes[1]) << BigInt(56);
  let shift = 49;
  for (let i = 2; i < bytes.length; i++) {
    if (shift < -6) return undefined;
    const group = BigInt(bytes[i] >> 1);
    payload |= shift >= 0 ? group << BigInt(shift) : group >> BigInt(-shift);
    shift -= 7;
    if ((bytes[i] & 1) === 0 && i !== bytes.length - 1) return undefined;
  }
  const bits = payload >= SIGN ? payload ^ SIGN : (TWO_64 - payload) % TWO_64;
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, bits);
  return view.getFloat64(0);
}

/** The key in the EPK: strings as 0x08, each UTF-8 byte + 1 (0xFF stays), 0x00. */
function encodeValue(value: PkComponent): Buffer {
  if (typeof value === 'string') {
    const utf8 = Buffer.from(value.substring(0, MAX_STRING_CHARS), 'utf8');
    return Buffer.concat([Buffer.from([0x08]), Buffer.from(utf8.map((b) => (b < 0xff ? b + 1 : b))), Buffer.from([0x00])]);
  }
  if (typeof value === 'number') return encodeNumberV1(value);
  return Buffer.from([scalarByte(value)]);
}

/**
 * The logical partition a v1 key names: the service hashes only the first 100 characters of a string,
 * so keys that share them are one logical partition (one id space, one point-read and query scope).
 */
export function logicalKeyV1(components: readonly PkComponent[]): PkComponent[] {
  return components.map((c) => (typeof c === 'string' ? c.substring(0, MAX_STRING_CHARS) : c));
}

export function effectivePartitionKeyV1(components: readonly PkComponent[]): string {
  const key = components[0];
  const hash = murmur.x86.hash32(new Uint8Array(hashingBytes(key)), 0) >>> 0;
  return Buffer.concat([encodeNumberV1(hash), encodeValue(key)])
    .toString('hex')
    .toUpperCase();
}

/** Where range bounds of a v1 container fall: the encoded hash `h` (hashes run 0 … 2^32 − 1). */
export function v1Bound(hash: number): string {
  return encodeNumberV1(hash).toString('hex').toUpperCase();
}

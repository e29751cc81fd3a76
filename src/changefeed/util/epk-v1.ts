import murmur from 'murmurhash3js-revisited';
import type { PartitionKeyValue } from './partition-key-value';

/**
 * Effective partition key, hash version 1: what Cosmos uses for a container created without
 * `partitionKey.version` (the JS SDK sends none unless told). MurmurHash3 x86 32-bit (seed 0) over
 * the key's hashing bytes, then the binary encoding of [hash as a number, key], upper-case hex, as
 * `@azure/cosmos` computes it. Strings count only their first 100 UTF-16 units.
 */
const MAX_STRING_CHARS = 100;
const TWO_64 = BigInt(1) << BigInt(64);
const SIGN = BigInt(1) << BigInt(63);
const BYTE = BigInt(0xff);

function scalarByte(value: PartitionKeyValue): number {
  if (value === true) return 0x03;
  if (value === false) return 0x02;
  if (value === null) return 0x01;
  return 0x00;
}

/** Bytes that are hashed: type byte, then UTF-8 + 0x00 (string) or float64 little-endian (number). */
function hashingBytes(value: PartitionKeyValue): Buffer {
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

/** The key as it follows the hash: strings as 0x08, each UTF-8 byte + 1 (0xFF stays), 0x00. */
function encodeValue(value: PartitionKeyValue): Buffer {
  if (typeof value === 'string') {
    const utf8 = Buffer.from(value.substring(0, MAX_STRING_CHARS), 'utf8');
    return Buffer.concat([Buffer.from([0x08]), Buffer.from(utf8.map((b) => (b < 0xff ? b + 1 : b))), Buffer.from([0x00])]);
  }
  if (typeof value === 'number') return encodeNumberV1(value);
  return Buffer.from([scalarByte(value)]);
}

/** The hash-v1 effective partition key of a single-path key value. */
export function effectivePartitionKeyV1(value: PartitionKeyValue): string {
  const hash = murmur.x86.hash32(new Uint8Array(hashingBytes(value)), 0) >>> 0;
  return Buffer.concat([encodeNumberV1(hash), encodeValue(value)])
    .toString('hex')
    .toUpperCase();
}

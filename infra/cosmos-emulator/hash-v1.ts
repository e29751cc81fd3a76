import { effectivePartitionKeyV1 as epkV1, encodeNumberV1 } from '@opstream/changefeed/epk';
import { hashValue } from './hash';
import { PkComponent } from './types';

/**
 * Effective partition key, hash version 1 (containers created with `partitionKey.version` 1), as the
 * service and `@azure/cosmos` compute it: MurmurHash3 x86 32-bit (seed 0) over the hashing encoding of
 * the key, then the binary encoding of [hash as a number, key] as upper-case hex. Strings count only
 * their first 100 UTF-16 units, so longer keys that share them share a logical partition's EPK.
 * Every v1 EPK starts with `05` (the hash is a number); range bounds are encoded hashes. The hashing and
 * the number encoding are the change feed package's (`@opstream/changefeed/epk`); what is the emulator's
 * alone (decoding a bound, a key's logical partition) is here.
 */
const MAX_STRING_CHARS = 100;
const TWO_64 = BigInt(1) << BigInt(64);
const SIGN = BigInt(1) << BigInt(63);

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

/**
 * The logical partition a v1 key names: the service hashes only the first 100 characters of a string,
 * so keys that share them are one logical partition (one id space, one point-read and query scope).
 */
export function logicalKeyV1(components: readonly PkComponent[]): PkComponent[] {
  return components.map((c) => (typeof c === 'string' ? c.substring(0, MAX_STRING_CHARS) : c));
}

export function effectivePartitionKeyV1(components: readonly PkComponent[]): string {
  return epkV1(hashValue(components[0]));
}

/** Where range bounds of a v1 container fall: the encoded hash `h` (hashes run 0 … 2^32 − 1). */
export function v1Bound(hash: number): string {
  return encodeNumberV1(hash).toString('hex').toUpperCase();
}

import murmur from 'murmurhash3js-revisited';
import { badRequest } from './errors';
import { PkComponent } from './types';

/**
 * Effective partition key, hash version 2, exactly as `@azure/cosmos` computes it: per component a
 * type byte and its bytes, MurmurHash3 x64-128 (seed 0), halves in Cosmos order, top two bits
 * cleared, upper-case hex. `["redmond"]` → `22E342F38A486A088463DFF7838A5963`.
 */
const STRING = 0x08;
const NUMBER = 0x05;
const TRUE = 0x03;
const FALSE = 0x02;
const NULL = 0x01;
const UNDEFINED = 0x00;
const STRING_END = 0xff;

function encodeComponent(value: PkComponent): Buffer {
  if (typeof value === 'string') return Buffer.concat([Buffer.from([STRING]), Buffer.from(value, 'utf8'), Buffer.from([STRING_END])]);
  if (typeof value === 'number') {
    const bytes = Buffer.alloc(9);
    bytes[0] = NUMBER;
    bytes.writeDoubleLE(value, 1);
    return bytes;
  }
  if (value === true) return Buffer.from([TRUE]);
  if (value === false) return Buffer.from([FALSE]);
  if (value === null) return Buffer.from([NULL]);
  return Buffer.from([UNDEFINED]);
}

export function effectivePartitionKey(components: readonly PkComponent[]): string {
  const hex = murmur.x64.hash128(new Uint8Array(Buffer.concat(components.map(encodeComponent))));
  // murmurhash3js-revisited prints h1 then h2 (each big-endian); Cosmos' byte order yields h2 then h1.
  const bytes = Buffer.from(hex.slice(16) + hex.slice(0, 16), 'hex');
  bytes[0] &= 0x3f;
  return bytes.toString('hex').toUpperCase();
}

/**
 * Hierarchical keys (kind MultiHash): each component hashed on its own (v2) and the hashes concatenated,
 * so a prefix of the key is a prefix of the EPK and its documents are the EPK range [prefix, prefix + "FF").
 */
export function multiHashEffectivePartitionKey(components: readonly PkComponent[]): string {
  return components.map((c) => effectivePartitionKey([c])).join('');
}

/**
 * Parses the `x-ms-documentdb-partitionkey` header (`["v"]`, `[{}]` for None, `[null]`; `["a", "b"]` for a
 * hierarchical key) into between `min` and `max` components.
 */
export function parsePartitionKeyHeader(value: string, min = 1, max = 1): PkComponent[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw badRequest(`The partition key header value ${value} is not valid JSON.`);
  }
  if (!Array.isArray(parsed) || parsed.length < min || parsed.length > max) {
    const want = min === max ? `${min} component${min === 1 ? '' : 's'}` : `${min} to ${max} components`;
    throw badRequest(
      `The partition key header value ${value} must be a JSON array with ${want}, one per partition key path of the container.`,
    );
  }
  return parsed.map((c: unknown) => toComponent(c, value));
}

function toComponent(c: unknown, raw: string): PkComponent {
  if (c === null || typeof c === 'string' || typeof c === 'boolean') return c;
  if (typeof c === 'number' && Number.isFinite(c)) return c;
  if (typeof c === 'object' && !Array.isArray(c) && Object.keys(c as object).length === 0) return {};
  throw badRequest(`The partition key component in ${raw} must be a string, number, boolean, null or {}.`);
}

/** Canonical text of a partition key value: equal keys, equal text. */
export function partitionKeyText(components: readonly PkComponent[]): string {
  return JSON.stringify(components);
}

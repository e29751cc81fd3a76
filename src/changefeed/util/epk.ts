import murmur from 'murmurhash3js-revisited';
import { effectivePartitionKeyV1 } from './epk-v1';
import type { PartitionKeyValue } from './partition-key-value';

export type { PartitionKeyValue } from './partition-key-value';

/**
 * Effective partition key (hash version 2) of a single-path partition key value: where Cosmos
 * places a document, as an upper-case 32-hex string comparable with feed-range bounds.
 * Used to tell which owned range a document belongs to (queue drops on a lease move, wake-ups),
 * and to check each result of a query scoped to a feed range (`cosmos/feed-range-scope.ts`).
 */

const STRING = 0x08;
const NUMBER = 0x05;
const TRUE = 0x03;
const FALSE = 0x02;
const NULL = 0x01;
const UNDEFINED = 0x00;
const STRING_END = 0xff;

function encode(value: PartitionKeyValue): Buffer {
  if (typeof value === 'string') return Buffer.concat([Buffer.from([STRING]), Buffer.from(value, 'utf8'), Buffer.from([STRING_END])]);
  if (typeof value === 'number') {
    const n = Buffer.alloc(8);
    n.writeDoubleLE(value);
    return Buffer.concat([Buffer.from([NUMBER]), n]);
  }
  if (value === true) return Buffer.from([TRUE]);
  if (value === false) return Buffer.from([FALSE]);
  if (value === null) return Buffer.from([NULL]);
  return Buffer.from([UNDEFINED]);
}

/**
 * The hash-v2 effective partition key of `values` (a hierarchical key's components as an array), as
 * an upper-case hex string comparable with feed range bounds (see `rangeContains`).
 */
export function effectivePartitionKey(values: PartitionKeyValue | PartitionKeyValue[]): string {
  const parts = Array.isArray(values) ? values : [values];
  const hex = murmur.x64.hash128(new Uint8Array(Buffer.concat(parts.map(encode))));
  // The library prints the two 64-bit halves high word first; Cosmos orders them the other way.
  const bytes = Buffer.from(hex.slice(16) + hex.slice(0, 16), 'hex');
  bytes[0] &= 0x3f;
  return bytes.toString('hex').toUpperCase();
}

/** What decides a container's hash, as a container read answers it (`ContainerDefinition.partitionKey`). */
export interface PartitionKeyHashing {
  readonly kind?: string;
  readonly version?: number;
}

/**
 * The EPK of `values` in a container with `definition`, as the SDK picks the hash: hierarchical keys
 * (MultiHash) hash each component with v2 and concatenate; Hash keys use v2 only when the container
 * says `version: 2`, and v1 otherwise (a container created without a version is v1 on the service).
 */
export function effectivePartitionKeyIn(definition: PartitionKeyHashing, values: PartitionKeyValue | PartitionKeyValue[]): string {
  const parts = Array.isArray(values) ? values : [values];
  if (definition.kind === 'MultiHash') return parts.map((part) => effectivePartitionKey(part)).join('');
  return definition.version === 2 ? effectivePartitionKey(parts) : effectivePartitionKeyV1(parts[0]);
}

/** Feed ranges are [min, max) over EPK strings; "" is the lowest and "FF" the highest bound. */
export function rangeContains(range: { min: string; max: string }, epk: string): boolean {
  return epk >= range.min && (range.max === 'FF' || epk < range.max);
}

import { effectivePartitionKey as epkV2 } from '@opstream/changefeed/epk';
import { badRequest } from './errors';
import { PkComponent } from './types';

/** The hashing value of a component: None (`{}`) hashes as undefined. */
export function hashValue(c: PkComponent): string | number | boolean | null | undefined {
  return typeof c === 'object' && c !== null ? undefined : c;
}

/**
 * Effective partition key, hash version 2, exactly as `@azure/cosmos` computes it (per component a
 * type byte and its bytes, MurmurHash3 x64-128, halves in Cosmos order, top two bits cleared,
 * upper-case hex): `["redmond"]` → `22E342F38A486A088463DFF7838A5963`. The hashing is the change
 * feed package's (`@opstream/changefeed/epk`), so the emulator and the processor cannot disagree
 * on where a key lives.
 */
export function effectivePartitionKey(components: readonly PkComponent[]): string {
  return epkV2(components.map(hashValue));
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

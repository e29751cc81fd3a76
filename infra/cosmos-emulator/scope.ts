import { ContainerState, FeedScope } from './container';
import { badRequest } from './errors';
import { effectivePartitionKey, multiHashEffectivePartitionKey, parsePartitionKeyHeader, partitionKeyText } from './hash';
import { effectivePartitionKeyV1, logicalKeyV1 } from './hash-v1';
import { ResolvedPartitionKey } from './write-ops';
import { EmulatorRequest } from './types';

/** Partition key, range and EPK headers → what a request addresses. */
export const H = {
  partitionKey: 'x-ms-documentdb-partitionkey',
  rangeId: 'x-ms-documentdb-partitionkeyrangeid',
  startEpk: 'x-ms-start-epk',
  endEpk: 'x-ms-end-epk',
  maxItemCount: 'x-ms-max-item-count',
  continuation: 'x-ms-continuation',
} as const;

/**
 * A partition key value of `container`: every component of its key (item operations), or with
 * `allowPrefix` the first one or more of a hierarchical key (queries and feeds).
 */
export function resolvePartitionKey(container: ContainerState, headerValue: string, allowPrefix = false): ResolvedPartitionKey {
  const definition = container.meta.partitionKey;
  const paths = definition.paths.length;
  const components = parsePartitionKeyHeader(headerValue, allowPrefix ? 1 : paths, paths);
  const epk =
    definition.kind === 'MultiHash'
      ? multiHashEffectivePartitionKey(components)
      : definition.version === 1
        ? effectivePartitionKeyV1(components)
        : effectivePartitionKey(components);
  const logical = definition.kind === 'Hash' && definition.version === 1 ? logicalKeyV1(components) : components;
  return { components, text: partitionKeyText(logical), value: partitionKeyText(components), epk };
}

/** Item operations must name their logical partition. */
export function requirePartitionKey(container: ContainerState, req: EmulatorRequest): ResolvedPartitionKey {
  const value = req.headers[H.partitionKey];
  if (value === undefined)
    throw badRequest('PartitionKey value must be supplied for this operation (header x-ms-documentdb-partitionkey).');
  return resolvePartitionKey(container, value);
}

/** The range id header, which some clients send as `<collection rid>,<id>`. */
export function rangeIdHeader(req: EmulatorRequest): string | undefined {
  const value = req.headers[H.rangeId];
  if (value === undefined || value === '') return undefined;
  return value.includes(',') ? value.slice(value.lastIndexOf(',') + 1) : value;
}

/**
 * Feeds and queries: a partition key header scopes to one logical partition; a range id to one
 * physical partition (410/1002 if it was split away); start/end EPK headers narrow further.
 */
export function resolveScope(container: ContainerState, req: EmulatorRequest): FeedScope {
  const scope: FeedScope = {};
  const rangeId = rangeIdHeader(req);
  if (rangeId !== undefined) scope.range = container.liveRange(rangeId);
  const pkHeader = req.headers[H.partitionKey];
  if (pkHeader !== undefined) {
    const pk = resolvePartitionKey(container, pkHeader, true);
    scope.pkText = pk.text;
    scope.epk = pk.epk;
    scope.epkPrefix = pk.components.length < container.meta.partitionKey.paths.length;
    if (scope.range) scope.range = undefined; // the key decides where to look
  }
  const start = req.headers[H.startEpk];
  const end = req.headers[H.endEpk];
  if (start !== undefined || end !== undefined) {
    if (start === undefined || end === undefined) throw badRequest('x-ms-start-epk and x-ms-end-epk must be sent together.');
    if (!/^[0-9A-Fa-f]*$/.test(start) || !/^[0-9A-Fa-f]*$/.test(end))
      throw badRequest('x-ms-start-epk and x-ms-end-epk must be hex strings.');
    scope.epkMin = start.toUpperCase();
    scope.epkMax = end.toUpperCase();
  }
  return scope;
}

/** Page size: `x-ms-max-item-count`, with -1/absent meaning the default of 100. */
export function maxItemCount(req: EmulatorRequest, fallback = 100): number {
  const raw = req.headers[H.maxItemCount];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw badRequest(`x-ms-max-item-count must be an integer; got ${raw}.`);
  return n <= 0 ? fallback : Math.min(n, 10_000);
}

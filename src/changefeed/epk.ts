/**
 * `@opstream/changefeed/epk`: the effective partition key hashing the processor maps keys to feed
 * ranges with (v1, v2, hierarchical), for code that must place keys exactly as Cosmos does, such
 * as a local Cosmos emulator. The one implementation in the repository: the emulator under
 * infra/cosmos-emulator imports it from here rather than keeping a copy.
 */
export { effectivePartitionKey, effectivePartitionKeyIn, rangeContains } from './util/epk';
export type { PartitionKeyHashing, PartitionKeyValue } from './util/epk';
export { effectivePartitionKeyV1, encodeNumberV1 } from './util/epk-v1';

/**
 * A partition key value (one component of a hierarchical key), as the hashes take it. A file of its
 * own so that the v1 and v2 hashes (epk-v1.ts, epk.ts) share it without importing each other.
 */
export type PartitionKeyValue = string | number | boolean | null | undefined;

/**
 * A lease-based change feed processor for `@azure/cosmos` (pull model underneath), sharing the
 * .NET processor's lease schema. See README.md for guarantees, options and events.
 *
 * The public face is this list and nothing else: the processor and its options, the stream face,
 * events, errors, the lease report (the estimator) and the lease document, the operator side of
 * handing a lease over and moving its position (through the lease document), the logger interface,
 * and the key hashing `wakePartitionKey` uses. Every other file is internal (no deep imports).
 */
export { createChangeFeedProcessor } from './processor';
export type { ChangeFeedProcessor, ProcessorState, WakeResult } from './processor';
export type { ChangeFeedContext, ChangeFeedHandler, PoisonHandler } from './handler';
export { DEFAULTS, DOTNET_DEFAULTS } from './options';
export type { ChangeFeedProcessorOptions } from './options';
export { createChangeFeedStream, handleBatches } from './stream';
export type { ChangeFeedBatch } from './stream';
export { EVENTS, ofType } from './events';
export type { ChangeFeedEvent } from './events';
export { ChangeFeedConfigurationError, ChangeFeedError } from './errors';
export { readLeaseReport } from './lease-report';
export type { LeaseReport } from './lease-report';
export { leaseHandOver } from './lease-hand-over';
export type { LeaseDocument } from './lease/lease-document';
export type { ChangeFeedLogger } from './logger';
export { effectivePartitionKey, rangeContains } from './util/epk';

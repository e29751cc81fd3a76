/**
 * A lease-based change feed processor for `@azure/cosmos` (pull model underneath), sharing the
 * .NET processor's lease schema. See README.md for guarantees, options and events.
 */
export { createChangeFeedProcessor } from './processor';
export type { ChangeFeedProcessor, ChangeFeedProcessorDeps, LeaseState, ProcessorState, WakeResult } from './processor';
export { createChangeFeedStream, handleBatches } from './stream';
export type { ChangeFeedBatch, ChangeFeedStream } from './stream';
export type { ChangeFeedContext, ChangeFeedHandler, PoisonHandler } from './handler';
export { DEFAULTS, DOTNET_DEFAULTS, resolveOptions } from './options';
export type { ChangeFeedProcessorOptions, ResolvedOptions, StartFrom } from './options';
export { EVENTS, ofType } from './events';
export type { ChangeFeedEvent, ChangeFeedEventBase, ChangeFeedEventType, ReleaseReason } from './events';
export {
  ChangeFeedConfigurationError,
  ChangeFeedEngineError,
  ChangeFeedError,
  HandlerError,
  LeaseLostError,
  PoisonHookError,
  ReadTimeoutError,
  ReaderStalledError,
  isHandlerError,
  isLeaseLost,
  isTransient,
} from './errors';
export type { ErrorContext } from './errors';
export type { FeedRangeBounds, LeaseDocument } from './lease/lease-document';
export type { LeaseScope } from './lease/lease-ids';
export { isExpired, isLeaseDocument, leaseTimestampMs, rangeOf } from './lease/lease-document';
export { accountHostOf, isLeaseIdOf, leasePrefix } from './lease/lease-ids';
export { configuredEndpointOf } from './lease/account-endpoint';
export { estimateLeaseLag, lagOf, latestLsnOfSessionToken } from './estimator';
export type { LagRead } from './estimator';
export { childLogger, silentLogger } from './logger';
export type { ChangeFeedLogger } from './logger';

// Building blocks the options take (backoff, clock) and the key hashing `wakePartitionKey` uses,
// exported so callers pace their own retries and map keys to ranges the same way.
export { DEFAULT_BACKOFF, nextDelayMs, retry, sleep } from './util/backoff';
export type { BackoffPolicy, RetryDecision } from './util/backoff';
export { ManualClock, systemClock } from './util/clock';
export type { Clock, TimerClock } from './util/clock';
export { effectivePartitionKey, effectivePartitionKeyIn, rangeContains } from './util/epk';
export type { PartitionKeyHashing, PartitionKeyValue } from './util/epk';

import type { Container } from '@azure/cosmos';
import { ChangeFeedError, messageOf, statusOf } from '../errors';

/**
 * Works around a trap of `@azure/cosmos` up to 4.9 that stops every change feed read of a container
 * (4.10 caches only successful lookups; this stays as a guard, a no-op there: it acts on a rejected
 * entry only).
 *
 * A `CosmosClient` keeps one cached promise per container for the container's partition key
 * ranges (the "routing map", `PartitionKeyRangeCache`), and every change feed iterator of that
 * container awaits it. When the one `pkranges` read behind it fails (a 503, a 429 beyond the SDK's
 * retries, a dropped connection, a timeout), the *rejected* promise stays in the cache: from then
 * on every iterator of that container on that client fails at once without sending a request,
 * until a 410 split forces a refresh. The iterator also re-wraps the failure as an `ErrorResponse`
 * without a status code, so it does not even look transient.
 *
 * Call `recoverRoutingMap` after a failed change feed read: it removes such a rejected entry (the
 * next read then fetches the ranges again) and returns the error to classify, which is the cached
 * error (with its real status) when the SDK's own error lost it. An entry that is pending or
 * resolved is left alone. Nothing happens if the SDK's internals are not the expected ones.
 */

interface RoutingMapCacheInternals {
  collectionRoutingMapByCollectionId?: Record<string, PromiseLike<unknown> | undefined>;
}

interface CacheSlot {
  entries: Record<string, PromiseLike<unknown> | undefined>;
  key: string;
}

function cacheSlotOf(container: Container): CacheSlot | undefined {
  try {
    const items = container.items as unknown as { partitionKeyRangeCache?: RoutingMapCacheInternals } | undefined;
    const entries = items?.partitionKeyRangeCache?.collectionRoutingMapByCollectionId;
    const url: unknown = container.url;
    if (!entries || typeof entries !== 'object' || typeof url !== 'string') return undefined;
    // The SDK's key: getIdFromLink(container.url), i.e. "dbs/{db}/colls/{container}" without outer slashes.
    return { entries, key: url.replace(/^\/+/, '').replace(/\/+$/, '') };
  } catch {
    return undefined;
  }
}

type Outcome = { state: 'fulfilled' } | { state: 'rejected'; error: unknown } | { state: 'pending' };

/** The state of a promise now: a settled one answers before the next macrotask, a pending one does not. */
function outcomeOf(promise: PromiseLike<unknown>): Promise<Outcome> {
  return Promise.race([
    Promise.resolve(promise).then(
      (): Outcome => ({ state: 'fulfilled' }),
      (error: unknown): Outcome => ({ state: 'rejected', error }),
    ),
    new Promise<Outcome>((resolve) => setImmediate(() => resolve({ state: 'pending' }))),
  ]);
}

/** Per cache and container: the last failed routing map that was evicted, for readers that failed on it too. */
const lastFailures = new WeakMap<object, Map<string, unknown>>();

/**
 * Removes the container's cached routing map if its fetch failed, and returns that failure.
 * Returns undefined when there is no failed entry (none, pending, resolved, or unknown internals).
 */
export async function evictFailedRoutingMap(container: Container): Promise<{ error: unknown } | undefined> {
  const slot = cacheSlotOf(container);
  return slot ? evictFailed(slot) : undefined;
}

async function evictFailed(slot: CacheSlot): Promise<{ error: unknown } | undefined> {
  const entry = slot.entries[slot.key];
  if (!entry || typeof entry.then !== 'function') return undefined;
  const outcome = await outcomeOf(entry);
  if (outcome.state !== 'rejected') return undefined;
  // Only the entry that failed: a refresh that replaced it meanwhile is kept.
  if (slot.entries[slot.key] === entry) delete slot.entries[slot.key];
  const byKey = lastFailures.get(slot.entries) ?? new Map<string, unknown>();
  lastFailures.set(slot.entries, byKey);
  byKey.set(slot.key, outcome.error);
  return { error: outcome.error };
}

export interface RecoveredReadError {
  /** The error to classify and report. */
  error: unknown;
  /** True when the read failed because the container's partition key ranges could not be read. */
  routingMap: boolean;
}

/**
 * After a change feed read of `container` failed with `err`: evicts a failed routing map (see
 * above) and says which error to act on. When `err` is the SDK's status-less wrapper of a failed
 * routing map (same message as the failure evicted now, or by another reader that failed on the
 * same cached promise a moment earlier), the routing map's own error, with its status, replaces
 * it. Any other error (a timeout of ours, an error with a status) is kept as it is.
 */
export async function recoverRoutingMap(container: Container, err: unknown): Promise<RecoveredReadError> {
  const slot = cacheSlotOf(container);
  if (!slot) return { error: err, routingMap: false };
  const evicted = await evictFailed(slot);
  const cause = evicted ? evicted.error : lastFailures.get(slot.entries)?.get(slot.key);
  const wrapped =
    cause !== undefined && !(err instanceof ChangeFeedError) && statusOf(err) === undefined && messageOf(err) === messageOf(cause);
  return wrapped ? { error: cause, routingMap: true } : { error: err, routingMap: evicted !== undefined };
}

/**
 * `iterator.readNext()` for one-shot reads (start position, lag estimate): on failure, evicts a
 * failed routing map so the next attempt can succeed, and rethrows the error that carries the
 * real status.
 */
export async function readNextRecovering<R>(container: Container, iterator: { readNext(): Promise<R> }): Promise<R> {
  try {
    return await iterator.readNext();
  } catch (err) {
    throw (await recoverRoutingMap(container, err)).error;
  }
}

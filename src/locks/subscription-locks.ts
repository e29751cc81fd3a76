/**
 * Subscription locks (ARO-HCP protocol): a lock is a document `{id: lower(subscriptionId), owner}`
 * in the Locks container with a TTL. Create = acquire (409 = held by someone else); the holder
 * renews it before the TTL expires; release = delete with If-Match. Hold it only around a
 * Cosmos read-modify-write, never around a slow Clusters Service call.
 *
 * @example
 *   const locks = new SubscriptionLocks(containers.locks, { owner: 'opstream-0' });
 *   await locks.withSubscriptionLock(sub, async (signal) => {
 *     const op = await operations.read(pk, id);
 *     signal.throwIfAborted();
 *     await operations.setStatus(pk, id, { status: 'Succeeded' });
 *   });
 */
import type { Container } from '@azure/cosmos';
import { cosmosStatus, CosmosRequestError } from '../cosmos/errors';
import type { Lock } from '../domain/types';
import { validate } from '../schemas/validator';
import { sleep } from '../util/backoff';
import { acquireRetryDelayMs } from './acquire-backoff';
import { LockLostError, LockNotAcquiredError } from './errors';
import { LockHandle } from './lock-handle';
import { LocalTurns } from './local-turns';
import { resolveLockOptions, type ResolvedLockOptions, type SubscriptionLockOptions } from './options';

export interface AcquireOptions {
  /** @defaultValue the `acquireTimeoutMs` option */
  timeoutMs?: number;
  /** Stops waiting (the signal's reason is thrown). */
  signal?: AbortSignal;
}

export class SubscriptionLocks {
  readonly options: ResolvedLockOptions;
  /** This process's sections on one subscription take turns (local-turns.ts). */
  private readonly turns = new LocalTurns();
  /** Sections run under each held lock so far (handed-over locks count on). */
  private readonly sections = new WeakMap<LockHandle, number>();

  constructor(
    private readonly container: Container,
    options: SubscriptionLockOptions = {},
  ) {
    this.options = resolveLockOptions(options);
  }

  /** One attempt: the handle, or undefined when someone else holds the lock. */
  async tryAcquire(subscriptionId: string): Promise<LockHandle | undefined> {
    const id = subscriptionId.toLowerCase();
    const document = validate('lock', { id, owner: this.options.owner, acquiredAt: new Date(this.options.clock.now()).toISOString() });
    const sentAtMs = this.options.clock.now();
    try {
      const { resource, etag } = await this.container.items.create<Lock>({ ...document, ttl: this.options.ttlSeconds });
      const handle = new LockHandle(
        this.container,
        document,
        { etag: etag ?? resource?._etag ?? '', write: { sentAtMs, tsSeconds: resource?._ts, ttlSeconds: this.options.ttlSeconds } },
        this.options,
      );
      this.options.logger?.debug('subscription lock acquired', { lockId: id, owner: this.options.owner });
      return handle;
    } catch (err) {
      if (cosmosStatus(err) === 409) return undefined;
      throw new CosmosRequestError(`create lock ${id}`, err, { lockId: id });
    }
  }

  /**
   * Tries until the lock is acquired or the timeout passes (LockNotAcquiredError), waiting with
   * capped exponential backoff and full jitter between attempts (see acquire-backoff.ts); no wait
   * runs past the deadline, where one last attempt is made. Retriable Cosmos failures are retried
   * like a held lock; others are thrown at once.
   */
  async acquire(subscriptionId: string, options: AcquireOptions = {}): Promise<LockHandle> {
    const timeoutMs = options.timeoutMs ?? this.options.acquireTimeoutMs;
    const deadline = this.options.clock.now() + timeoutMs;
    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      options.signal?.throwIfAborted();
      try {
        const handle = await this.tryAcquire(subscriptionId);
        if (handle) return handle;
      } catch (err) {
        if (!(err instanceof CosmosRequestError) || !err.retriable) throw err;
        lastError = err;
      }
      const remaining = deadline - this.options.clock.now();
      if (remaining <= 0) throw new LockNotAcquiredError(subscriptionId.toLowerCase(), timeoutMs, lastError);
      await sleep(Math.min(acquireRetryDelayMs(this.options, attempt, this.options.random), remaining), options.signal);
    }
  }

  /**
   * Runs `fn` while holding the subscription's lock, then releases it — or, when another section of
   * this process waits for the same lock, hands the held lock to it (at most `maxSectionsPerHold`
   * sections in a row, so that the frontend and other instances get their turn). `fn` gets a signal
   * that aborts if the lock is lost; check it before each write. If the lock was lost before `fn`
   * settled, the call rejects with LockLostError (retriable: run the section again). The timeout
   * covers the wait for this process's turn and for the lock together.
   */
  async withSubscriptionLock<T>(subscriptionId: string, fn: (signal: AbortSignal) => Promise<T>, options: AcquireOptions = {}): Promise<T> {
    const key = subscriptionId.toLowerCase();
    const timeoutMs = options.timeoutMs ?? this.options.acquireTimeoutMs;
    const startedMs = this.options.clock.now();
    const turn = await this.turns.take(key, {
      timeoutMs,
      signal: options.signal,
      onTimeout: () => new LockNotAcquiredError(key, timeoutMs),
    });
    let handle: LockHandle | undefined;
    try {
      handle = turn.handedOver && !turn.handedOver.lost ? turn.handedOver : undefined;
      if (!handle) {
        const remainingMs = Math.max(0, timeoutMs - (this.options.clock.now() - startedMs));
        handle = await this.acquire(subscriptionId, { timeoutMs: remainingMs, signal: options.signal });
      }
      this.sections.set(handle, (this.sections.get(handle) ?? 0) + 1);
      return await this.runHolding(handle, fn);
    } finally {
      const handOver =
        handle && !handle.lost && this.turns.waiting(key) && (this.sections.get(handle) ?? 0) < this.options.maxSectionsPerHold;
      if (!handOver) await handle?.release();
      this.turns.end(key, handOver ? handle : undefined);
    }
  }

  private async runHolding<T>(handle: LockHandle, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await fn(handle.signal);
    } catch (err) {
      const lost = handle.lossError;
      if (lost && err !== lost) throw new LockLostError(lost.lockId, lost.reason, err);
      throw err;
    }
    if (handle.lost) throw handle.lossError as LockLostError;
    return result;
  }
}

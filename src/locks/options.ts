/** Options of the subscription lock, one DEFAULTS constant, and validation that says how to fix a value. */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../logging/logger';
import { systemClock, type Clock } from '../util/clock';
import type { AcquireBackoff } from './acquire-backoff';

export interface SubscriptionLockOptions {
  /** Recorded on the lock document, for diagnostics. @defaultValue `<hostname>-<pid>-<random>` */
  owner?: string;
  /** Lifetime of the lock document (its `ttl`), whole seconds. @defaultValue 10 */
  ttlSeconds?: number;
  /** Renew this long before the conservatively estimated expiry. @defaultValue 1000 */
  renewMarginMs?: number;
  /**
   * While the lock is held elsewhere, acquire() waits a random time up to this before its first
   * retry, doubling that ceiling on each further retry (full jitter). @defaultValue 20
   */
  acquireRetryBaseMs?: number;
  /** Ceiling of any wait between acquire attempts. @defaultValue 500 */
  acquireRetryMaxMs?: number;
  /** acquire() gives up after this (LockNotAcquiredError). @defaultValue ttlSeconds × 1000 */
  acquireTimeoutMs?: number;
  /** After a transient renewal failure, try again after this (until the lock would expire). @defaultValue 200 */
  renewRetryIntervalMs?: number;
  /**
   * Sections of this process run in a row under one held lock when they wait for it (the lock is
   * handed over instead of deleted and created again); then it is released so that other holders
   * get their turn. @defaultValue 8
   */
  maxSectionsPerHold?: number;
  /** Uniform in [0, 1): the jitter of acquire retries; injectable for deterministic tests. @defaultValue Math.random */
  random?: () => number;
  /** @defaultValue a silent logger */
  logger?: Logger;
  /** @defaultValue the system clock */
  clock?: Clock;
}

export const SUBSCRIPTION_LOCK_DEFAULTS = Object.freeze({
  ttlSeconds: 10,
  renewMarginMs: 1000,
  acquireRetryBaseMs: 20,
  acquireRetryMaxMs: 500,
  renewRetryIntervalMs: 200,
  maxSectionsPerHold: 8,
});

/** Cosmos TTL has whole-second resolution (expiry at `_ts + ttl`, `_ts` truncated): see renewal.ts. */
export const TTL_RESOLUTION_MS = 1000;
/** Renewals closer together than this would hammer Cosmos. */
const MIN_RENEW_INTERVAL_MS = 100;

export type ResolvedLockOptions = Required<Omit<SubscriptionLockOptions, 'logger'>> & { logger?: Logger };

export class LockOptionsError extends Error {
  override readonly name = 'LockOptionsError';
}

export function resolveLockOptions(options: SubscriptionLockOptions): ResolvedLockOptions {
  const ttlSeconds = options.ttlSeconds ?? SUBSCRIPTION_LOCK_DEFAULTS.ttlSeconds;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 2) {
    throw new LockOptionsError(`ttlSeconds must be a whole number >= 2 (Cosmos TTL is in whole seconds), got ${ttlSeconds}`);
  }
  const renewMarginMs = options.renewMarginMs ?? SUBSCRIPTION_LOCK_DEFAULTS.renewMarginMs;
  const maxMargin = ttlSeconds * 1000 - TTL_RESOLUTION_MS - MIN_RENEW_INTERVAL_MS;
  if (!(renewMarginMs >= 0) || renewMarginMs > maxMargin) {
    throw new LockOptionsError(
      `renewMarginMs must be between 0 and ${maxMargin} for ttlSeconds=${ttlSeconds} (renewals happen every ttl − 1 s − margin); got ${renewMarginMs}: lower it or raise ttlSeconds`,
    );
  }
  return {
    owner: options.owner ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    ttlSeconds,
    renewMarginMs,
    ...acquireBackoff(options),
    acquireTimeoutMs: positive('acquireTimeoutMs', options.acquireTimeoutMs ?? ttlSeconds * 1000),
    renewRetryIntervalMs: positive('renewRetryIntervalMs', options.renewRetryIntervalMs ?? SUBSCRIPTION_LOCK_DEFAULTS.renewRetryIntervalMs),
    maxSectionsPerHold: wholeAtLeastOne('maxSectionsPerHold', options.maxSectionsPerHold ?? SUBSCRIPTION_LOCK_DEFAULTS.maxSectionsPerHold),
    logger: options.logger,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
  };
}

function positive(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new LockOptionsError(`${name} must be a positive number of milliseconds, got ${value}`);
  }
  return value;
}

function wholeAtLeastOne(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new LockOptionsError(`${name} must be a whole number >= 1, got ${value}`);
  return value;
}

function acquireBackoff(options: SubscriptionLockOptions): AcquireBackoff {
  const acquireRetryBaseMs = positive('acquireRetryBaseMs', options.acquireRetryBaseMs ?? SUBSCRIPTION_LOCK_DEFAULTS.acquireRetryBaseMs);
  const acquireRetryMaxMs = positive('acquireRetryMaxMs', options.acquireRetryMaxMs ?? SUBSCRIPTION_LOCK_DEFAULTS.acquireRetryMaxMs);
  if (acquireRetryBaseMs > acquireRetryMaxMs) {
    throw new LockOptionsError(
      `acquireRetryBaseMs (${acquireRetryBaseMs}) must not exceed acquireRetryMaxMs (${acquireRetryMaxMs}): lower the base or raise the ceiling`,
    );
  }
  return { acquireRetryBaseMs, acquireRetryMaxMs };
}

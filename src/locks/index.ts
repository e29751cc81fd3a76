/** Subscription locks (Locks container): acquire, renew, release, withSubscriptionLock. */
export * from './errors';
export { LockHandle } from './lock-handle';
export { LockOptionsError, SUBSCRIPTION_LOCK_DEFAULTS, type SubscriptionLockOptions } from './options';
export { expiryEstimateMs, renewalDueMs, type LeaseWrite } from './renewal';
export * from './subscription-locks';

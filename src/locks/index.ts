/** Subscription locks (Locks container): acquire, renew, release, withSubscriptionLock. */
export * from './errors';
export { LockOptionsError, SUBSCRIPTION_LOCK_DEFAULTS, type SubscriptionLockOptions } from './options';
export * from './subscription-locks';

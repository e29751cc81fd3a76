export * from './arm-ids';
export * from './frontend-simulator';
export * from './notification-receiver';
export * from './workload';
export { seededRandom, seededGuid } from './seeded-random';
export { withFrontendLock, type FrontendLockOptions } from './subscription-lock';
export { OPERATION_HINTS_ENTITY, type HintCounts } from '@opstream/hint-sender';

/**
 * Settings that moved when the configuration groups were made to match the components one to one
 * (`follow.*`, `locks.*`) and durations became milliseconds. Kept so that an old name gets a clear
 * error naming the new one instead of being ignored.
 */
export interface RenamedSetting {
  from: string;
  to: string;
  /** Said when the unit changed too. */
  unit?: string;
}

export const RENAMED_SETTINGS: readonly RenamedSetting[] = Object.freeze([
  { from: 'pipeline.followInitialDelayMs', to: 'follow.initialDelayMs' },
  { from: 'pipeline.followMaxDelayMs', to: 'follow.maxDelayMs' },
  { from: 'pipeline.followBatchWindowMs', to: 'follow.batchWindowMs' },
  { from: 'pipeline.followBatchTickMs', to: 'follow.batchTickMs' },
  { from: 'pipeline.followFirstCheckHitRatio', to: 'follow.firstCheckHitRatio' },
  { from: 'pipeline.lockTtlSeconds', to: 'locks.ttlMs', unit: 'milliseconds' },
  { from: 'pipeline.lockAcquireRetryBaseMs', to: 'locks.acquireRetryBaseMs' },
  { from: 'pipeline.lockAcquireRetryMaxMs', to: 'locks.acquireRetryMaxMs' },
  { from: 'pipeline.createDeadlineMinutes', to: 'pipeline.createDeadlineMs', unit: 'milliseconds' },
  { from: 'pipeline.deleteDeadlineMinutes', to: 'pipeline.deleteDeadlineMs', unit: 'milliseconds' },
]);

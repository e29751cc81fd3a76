/**
 * Settings that moved when the configuration groups were made to match the components one to one
 * (`follow.*`, `locks.*`), durations became milliseconds and the change feed's group was named
 * `changefeed.*` (it was `processor.*`). Kept so that an old name gets a clear
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
  // `processor` named three things (the change feed processor, operation processors, this group).
  { from: 'processor.name', to: 'changefeed.name' },
  { from: 'processor.instanceName', to: 'changefeed.instanceName' },
  { from: 'processor.startFrom', to: 'changefeed.startFrom' },
  { from: 'processor.maxItemCount', to: 'changefeed.maxItemCount' },
  { from: 'processor.leaseAcquireIntervalMs', to: 'changefeed.leaseAcquireIntervalMs' },
  { from: 'processor.leaseRenewIntervalMs', to: 'changefeed.leaseRenewIntervalMs' },
  { from: 'processor.leaseExpirationMs', to: 'changefeed.leaseExpirationMs' },
  { from: 'processor.maxPollDelayMs', to: 'changefeed.maxPollDelayMs' },
  { from: 'processor.checkpointIntervalMs', to: 'changefeed.checkpointIntervalMs' },
  { from: 'processor.maxLeasesPerInstance', to: 'changefeed.maxLeasesPerInstance' },
]);

/** Timing of the status follow, from configuration (`follow.*`). */
export interface FollowSettings {
  initialDelayMs: number;
  maxDelayMs: number;
  /** Cluster checks wake on multiples of this so their reads share one call (0 = off). */
  batchTickMs: number;
  /** How long cluster status reads wait for company before one call goes out. */
  batchWindowMs: number;
  /** Share of first checks after a dispatch that should find Clusters Service done. */
  firstCheckHitRatio: number;
  /** An Update PATCHes a resource at most once within this long (`follow.updateCooldownMs`). */
  updateCooldownMs: number;
}

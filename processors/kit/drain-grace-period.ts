import type { CsClusterUpdateRequest } from '../../src/kit';

type DrainGracePeriod = NonNullable<CsClusterUpdateRequest['node_drain_grace_period']>;

/** The unit opstream writes a drain grace period in (ARO-HCP's resources count minutes). */
const MINUTES = 'minutes';

/** A Resource's `nodeDrainTimeoutMinutes` in Clusters Service's shape; absent = 0 (ARO-HCP's default: no limit). */
export function drainGracePeriod(minutes: number | undefined): DrainGracePeriod {
  return { unit: MINUTES, value: minutes ?? 0 };
}

/** What Clusters Service holds, comparable with `drainGracePeriod`: absent is 0 minutes; another unit is kept as it is (and so differs). */
export function heldDrainGracePeriod(held: DrainGracePeriod | undefined): DrainGracePeriod {
  return held ?? drainGracePeriod(0);
}

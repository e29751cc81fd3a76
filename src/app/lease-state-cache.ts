import type { ChangeFeedProcessor, ProcessorState } from '@opstream/changefeed';
import { cachedFor } from '../ops/cached-for';
import type { OpstreamMetrics } from '../ops/metrics';

/**
 * The processor's lease state with the lag of the leases this instance holds (a change-feed read for
 * each that is not resting caught up; the owners of the others report theirs), shared by
 * whoever asks (the live page's summary polls, Prometheus scrapes): read at most once per
 * `maxAgeMs`, concurrent callers share the read in flight, a failed read is not kept. Each read
 * refreshes the per-lease lag gauge and the count of leases nobody holds, so `/metrics` reports them
 * current without a background timer.
 */
export function leaseStateCache(
  processor: ChangeFeedProcessor,
  metrics: OpstreamMetrics,
  maxAgeMs = 1000,
  now: () => number = Date.now,
): () => Promise<ProcessorState> {
  return cachedFor(
    maxAgeMs,
    () =>
      processor.getCurrentState({ estimateLag: 'owned' }).then((s) => {
        for (const l of s.leases) if (l.ownedByThisInstance && l.lag !== undefined) metrics.leaseLag.set({ lease: l.leaseToken }, l.lag);
        metrics.leasesUnowned.set(s.leases.filter((l) => !l.owner || l.expired).length);
        return s;
      }),
    { now },
  );
}

import { EVENTS, type ChangeFeedProcessor } from '@opstream/changefeed';
import type { Logger } from '../logging/logger';
import type { OpstreamMetrics } from '../ops/metrics';
import type { OpstreamConfig } from '../config/config-types';
import { operationEventsLeasePrefix } from './operation-events';

type Found = NonNullable<ReturnType<ChangeFeedProcessor['otherProcessors']>>['processors'];

/**
 * A second fleet: instances under another `changefeed.name` holding live leases on the same
 * Operations container read every change too, so every operation is handled twice. The pipeline's
 * processor widens its lease listing now and then to see them (no request of its own); this reads
 * what it found into `opstream_other_fleet_leases` and warns when the set of names changes. This
 * fleet's own other processor (the Operation events publisher's prefix) is not a second fleet.
 */
export function watchOtherFleets(
  config: OpstreamConfig,
  io: { processor: ChangeFeedProcessor; metrics: OpstreamMetrics; logger: Logger },
): { check(): void; stop(): void } {
  const { otherProcessorsIntervalMs: every, leaseAcquireIntervalMs } = config.changefeed;
  const deps = {
    ...io,
    ownProcessorNames: [config.changefeed.name, operationEventsLeasePrefix(config)],
    // Reads what the listing found (no request): as often as the balancer lists, at most.
    intervalMs: every > 0 ? Math.min(every, leaseAcquireIntervalMs) : 0,
  };
  let reportedAt = -1;
  let named = '';
  const check = (): void => {
    const seen = deps.processor.otherProcessors();
    if (!seen || seen.atMs === reportedAt) return;
    reportedAt = seen.atMs;
    const others = seen.processors.filter((p) => !deps.ownProcessorNames.includes(p.processorName));
    deps.metrics.otherFleetLeases.reset();
    for (const p of others) deps.metrics.otherFleetLeases.set({ processor: p.processorName }, p.liveLeases);
    const names = others.map((p) => p.processorName).join(',');
    if (names !== named) {
      if (others.length > 0) deps.logger.warn(warning(others, deps.ownProcessorNames[0]), { otherFleets: others });
      else if (named) deps.logger.info('no other fleet holds live leases on the Operations container any more');
    }
    named = names;
  };
  // At start: the first balancing cycle (inside start) made a widened listing.
  const started = deps.processor.events$.subscribe((e) => {
    if (e.type === EVENTS.processorStarted) check();
  });
  const timer = deps.intervalMs > 0 ? setInterval(check, deps.intervalMs) : undefined;
  timer?.unref();
  return {
    check,
    stop: () => {
      started.unsubscribe();
      clearInterval(timer);
    },
  };
}

function warning(others: Found, own: string | undefined): string {
  const list = others.map((p) => `${p.processorName} (${p.liveLeases} live lease(s), owners ${p.owners.join(', ')})`).join('; ');
  return (
    `a second fleet reads the same Operations container: ${list}; each change is handled by both. ` +
    `If it is a typo of changefeed.name (OPSTREAM_CHANGEFEED_NAME, here ${own ?? '?'}), stop those instances; ` +
    'opstream config check --for run names them too'
  );
}

import type { QueueWaiting } from '../pipeline/events';
import type { Subscription } from 'rxjs';
import type { Logger } from '../logging/logger';
import { PIPELINE_EVENTS, type OperationIds, type OperationSummary, type PipelineEvent } from '../pipeline/events';
import { SETTLEMENT_RESULTS } from '../pipeline/queue/settle';
import type { OpstreamMetrics } from './metrics';
import type { TapRegistry } from './taps';

/**
 * Turns the pipeline's events into what operators see: Prometheus metrics, the tappable streams
 * and log lines. The one place that knows all three, so each step is described once (in
 * `pipeline/events.ts`) and shown consistently.
 */
export function observePipeline(
  events$: { subscribe(next: (e: PipelineEvent) => void): Subscription },
  sinks: { metrics: OpstreamMetrics; taps: TapRegistry; logger: Logger },
): Subscription {
  const { metrics, taps, logger } = sinks;
  // Known results start at zero, so rate() and alerts see a series before the first of each.
  for (const result of SETTLEMENT_RESULTS) metrics.queueSettlements.inc({ result }, 0);
  return events$.subscribe((e) => {
    switch (e.type) {
      case PIPELINE_EVENTS.changeSeen:
        taps.publish('changes', { leaseToken: e.leaseToken, ...e.ids, status: e.status });
        return;
      case PIPELINE_EVENTS.operationRead:
        taps.publish('operations', { ...e.operation, leaseToken: e.leaseToken });
        return;
      case PIPELINE_EVENTS.operationActive:
        if (e.reactionMs !== undefined) metrics.reactionLatency.observe({ request: e.operation.request }, e.reactionMs / 1000);
        taps.publish('active', {
          ...e.operation,
          leaseToken: e.leaseToken,
          ...(e.reactionMs !== undefined ? { reactionMs: e.reactionMs } : {}),
        });
        return;
      case PIPELINE_EVENTS.operationDecided:
        metrics.operations.inc({ processor: e.processor, outcome: e.outcome });
        taps.publish('decisions', {
          ...ids(e.operation),
          status: e.operation.status,
          processor: e.processor,
          outcome: e.outcome,
          ...(e.afterMs !== undefined ? { afterMs: e.afterMs } : {}),
          ...(e.note ? { note: e.note } : {}),
        });
        return;
      case PIPELINE_EVENTS.operationTransitioned:
        metrics.transitions.inc({ status: e.operation.status });
        taps.publish('transitions', { ...e.operation, previousStatus: e.previousStatus, ...(e.error ? { error: e.error } : {}) });
        logger.info(`operation ${e.operation.request} ${e.previousStatus} → ${e.operation.status}`, {
          ...ids(e.operation),
          status: e.operation.status,
          ...(e.error ? { errorCode: e.error.code } : {}),
        });
        return;
      case PIPELINE_EVENTS.operationGaveUp:
        logger.error('operation kept failing; dead-lettered', { ...e.ids, leaseToken: e.leaseToken, error: e.error });
        return;
      case PIPELINE_EVENTS.notificationSent:
        metrics.notifications.inc(e.delivered ? { outcome: 'delivered' } : { outcome: 'failed', reason: e.reason ?? 'connection' });
        taps.publish('notifications', {
          ...e.ids,
          status: e.status,
          delivered: e.delivered,
          attempt: e.attempt,
          ...(e.httpStatus !== undefined ? { httpStatus: e.httpStatus } : {}),
          ...(e.reason ? { reason: e.reason } : {}),
        });
        return;
      case PIPELINE_EVENTS.notificationGivenUp:
        metrics.notifications.inc({ outcome: 'given-up', reason: e.reason });
        taps.publish('notifications', { ...e.ids, status: e.status, delivered: false, givenUp: true, reason: e.reason, detail: e.detail });
        logger.warn(`ARM notification given up (${e.reason}): ${e.detail}`, { ...e.ids, status: e.status, reason: e.reason });
        return;
      case PIPELINE_EVENTS.deadLetterWritten:
        metrics.deadLetters.inc({ reason: e.reason });
        taps.publish('dead-letters', {
          ...e.ids,
          leaseToken: e.leaseToken,
          reason: e.reason,
          error: e.error,
          ...(e.truncated ? { truncated: true } : {}),
        });
        logger.warn(`document dead-lettered (${e.reason})`, {
          ...e.ids,
          leaseToken: e.leaseToken,
          error: e.error,
          deadLetterId: e.deadLetterId,
        });
        return;
      case PIPELINE_EVENTS.lockWaited:
        metrics.lockWaitSeconds.observe(e.waitedMs / 1000);
        return;
      case PIPELINE_EVENTS.lockLost:
        metrics.lockLosses.inc();
        return;
      case PIPELINE_EVENTS.followFirstCheck:
        metrics.followFirstCheckDelay.set({ kind: e.kind }, e.delayMs / 1000);
        return;
      case PIPELINE_EVENTS.followCompleted:
        metrics.completionLag.observe({ request: e.request }, e.lagMs / 1000);
        return;
      case PIPELINE_EVENTS.queueSize:
        return queueGauges(metrics, e);
      case PIPELINE_EVENTS.queueSettled:
        metrics.queueSettlements.inc({ result: e.result });
        return queueGauges(metrics, e);
      case PIPELINE_EVENTS.leaseChanged:
        metrics.leasesOwned.set(e.owned);
        if (e.change === 'released' || e.change === 'lost') metrics.leaseLag.remove({ lease: e.leaseToken });
        taps.publish('leases', { type: `changefeed.lease.${e.change}`, leaseToken: e.leaseToken, instanceName: e.instanceName });
        return;
    }
  });
}

function ids(o: OperationSummary | OperationIds): OperationIds {
  const out: OperationIds = { operationId: o.operationId, subscriptionId: o.subscriptionId, resourceId: o.resourceId };
  if (o.correlationRequestId) out.correlationRequestId = o.correlationRequestId;
  if (o.clientRequestId) out.clientRequestId = o.clientRequestId;
  return out;
}

/** What the queue reports with every size change and settlement: its size and its two lines. */
function queueGauges(metrics: OpstreamMetrics, e: { size: number; waiting: QueueWaiting }): void {
  metrics.scheduled.set(e.size);
  metrics.queueWaiting.set({ line: 'started' }, e.waiting.started);
  metrics.queueWaiting.set({ line: 'new' }, e.waiting.fresh);
}

import type { OpstreamConfig } from '../../config/config-types';
import { GIVE_UP_CAUSES } from '../../cosmos/bounded-retry';
import { OPERATION_STATUSES } from '../../domain/statuses';
import type { Logger } from '../../logging/logger';
import { createMetrics, createPermissionDeniedCounter, initialiseCounters, type OpstreamMetrics } from '../../ops/metrics';
import { STREAMS } from '../../ops/stream-names';
import { DEAD_LETTER_REASONS } from '../../pipeline/dead-letter';
import { NOTIFICATION_FAILURE_REASONS, NOTIFICATION_GIVE_UP_REASONS } from '../../pipeline/events';
import type { ActiveOperation } from '../../pipeline/operation-pipeline';
import type { OperationProcessor } from '../../pipeline/reconcile/processor';
import { systemClock } from '../../util/clock';
import { commit, version } from '../../util/version';
import type { CosmosRequestObserver } from '../cosmos-client';
import { containerIds } from '../container-layout';
import { COSMOS_REQUEST_KINDS } from '../cosmos-request-kind';
import { NO_CONTAINER, PermissionWatch } from '../permission-watch';

export interface WiredMetrics {
  metrics: OpstreamMetrics;
  /** Watches every Cosmos answer for a missing data role; readiness reads it. */
  permissions: PermissionWatch;
  /** Counts every Cosmos request by kind and status, with its RU. */
  onRequest: CosmosRequestObserver;
}

/** The metrics registry and the observer of every Cosmos request. */
export function wireMetrics(
  config: OpstreamConfig,
  { logger, activeOperations }: { logger: Logger; activeOperations: () => ActiveOperation[] },
): WiredMetrics {
  const metrics = createMetrics({ build: { version, commit }, activeOperations });
  // Every answer is watched for a missing data role (a role removed while running): counted, logged once, unready.
  const permissionDenied = createPermissionDeniedCounter(metrics.registry, [...new Set(Object.values(containerIds(config))), NO_CONTAINER]);
  const permissions = new PermissionWatch({ clock: systemClock, logger, count: (container) => permissionDenied.inc({ container }) });
  const onRequest: CosmosRequestObserver = (kind, status, ru, request) => {
    metrics.cosmosRequests.inc({ kind, status: String(status) });
    if (ru > 0) metrics.cosmosRequestUnits.inc({ kind }, ru);
    permissions.observe(status, request);
  };
  return { metrics, permissions, onRequest };
}

/** Every counter's known label values at zero from the start, so that rates and alerts see the first increment. */
export function initialiseKnownCounters(metrics: OpstreamMetrics, registry: readonly OperationProcessor[]): void {
  initialiseCounters(metrics, {
    processors: registry.map((p) => p.name),
    statuses: OPERATION_STATUSES,
    deadLetterReasons: DEAD_LETTER_REASONS,
    deadLetterCauses: GIVE_UP_CAUSES,
    cosmosKinds: COSMOS_REQUEST_KINDS,
    streams: STREAMS,
    notificationFailures: NOTIFICATION_FAILURE_REASONS,
    notificationGiveUps: NOTIFICATION_GIVE_UP_REASONS,
  });
}

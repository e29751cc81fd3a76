import { randomBytes } from 'crypto';
import type { ClustersServiceClient } from '../../clusters-service';
import type { OpstreamConfig } from '../../config/config-types';
import {
  DeadLettersRepository,
  OperationsRepository,
  ResourcesRepository,
  SubscriptionsRepository,
  type OpstreamContainers,
} from '../../cosmos';
import { SubscriptionLocks } from '../../locks';
import type { Logger } from '../../logging/logger';
import type { OpstreamMetrics } from '../../ops/metrics';
import type { PipelineServices } from '../../pipeline/context';
import { announceDeadLetter } from '../../pipeline/dead-letter';
import type { PipelineEvents } from '../../pipeline/events';
import { KnownDocuments } from '../../pipeline/known-documents';
import { OwnWrites } from '../../pipeline/own-writes';
import { defaultNotificationConcurrency } from '../../pipeline/reconcile/notification-delivery';
import { systemClock } from '../../util/clock';
import { wireArmNotifier } from './arm';

/** The dead letters, whose writes that finish late (after a retry) are still announced on the pipeline's events. */
export function wireDeadLetters(
  containers: OpstreamContainers,
  { logger, metrics, events }: { logger: Logger; metrics: OpstreamMetrics; events: PipelineEvents },
): DeadLettersRepository {
  return new DeadLettersRepository(containers.deadLetters, {
    logger,
    failures: metrics.deadLetterWriteFailures,
    onLateWrite: (input, result) => announceDeadLetter(events, input, result),
  });
}

export interface PipelineServicesDeps {
  containers: OpstreamContainers;
  cs: ClustersServiceClient;
  deadLetters: DeadLettersRepository;
  events: PipelineEvents;
  logger: Logger;
  instanceName: string;
}

/** The services every handling shares, built once: repositories, locks, clients and the pipeline's settings. */
export function wirePipelineServices(config: OpstreamConfig, deps: PipelineServicesDeps): PipelineServices {
  const { containers, logger, instanceName } = deps;
  const ownWrites = new OwnWrites();
  // As many as the queue holds operations: no handling needs more.
  const known = new KnownDocuments(config.pipeline.maxScheduled);
  // A configured name may outlive a process (a restarted pod): the claim token tells the two apart.
  const instanceId = `${instanceName}#${randomBytes(4).toString('hex')}`;
  return {
    operations: new OperationsRepository(containers.operations, {
      clock: systemClock,
      onWrite: (doc) => ownWrites.record(doc),
      onVersion: (id, doc) => known.sawOperation(id, doc),
    }),
    resources: new ResourcesRepository(containers.resources, { onVersion: (id, doc) => known.sawResource(id, doc) }),
    subscriptions: new SubscriptionsRepository(containers.subscriptions),
    deadLetters: deps.deadLetters,
    locks: new SubscriptionLocks(containers.locks, {
      owner: instanceName,
      // The lock is a document with a Cosmos TTL, which counts whole seconds (locks.ttlMs is a multiple of 1000).
      ttlSeconds: config.locks.ttlMs / 1000,
      acquireRetryBaseMs: config.locks.acquireRetryBaseMs,
      acquireRetryMaxMs: config.locks.acquireRetryMaxMs,
      logger,
    }),
    cs: deps.cs,
    notifier: wireArmNotifier(config, { logger, instanceId }),
    events: deps.events,
    ownWrites,
    known,
    logger,
    clock: systemClock,
    instanceId,
    settings: {
      createDeadlineMs: config.pipeline.createDeadlineMs,
      deleteDeadlineMs: config.pipeline.deleteDeadlineMs,
      waitDelayMs: Math.min(1000, config.follow.maxDelayMs),
      createSettleMs: config.pipeline.inflightCreateGraceMs ?? 2 * config.clustersService.timeoutMs,
      notificationClaimMs: config.pipeline.notificationClaimMs,
      notificationDeadlineMs: config.notifications.deadlineMs,
      notificationRetryMaxDelayMs: config.notifications.retryMaxDelayMs,
      notificationConcurrency: config.notifications.concurrency ?? defaultNotificationConcurrency(config.pipeline.concurrency),
    },
  };
}

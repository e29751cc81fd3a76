import type { ClusterStatusBatcher, ClustersServiceClient } from '../clusters-service';
import type { DeadLettersRepository, OperationsRepository, ResourcesRepository, SubscriptionsRepository } from '../cosmos';
import type { SubscriptionLocks } from '../locks';
import type { Logger } from '../logging/logger';
import type { OpstreamMetrics } from '../ops/metrics';
import type { Clock } from '../util/clock';
import type { ArmNotifier } from './arm-notifier';
import type { FirstCheckLearner } from './first-check-learner';
import type { FollowScheduleOptions } from './follow-schedule';
import type { OwnWrites } from './own-writes';
import type { TapRegistry } from './taps';

/** Timing and limits of the pipeline (from configuration). */
export interface PipelineSettings {
  follow: FollowScheduleOptions;
  /** Used when a Resource has no deadline of its own. */
  createDeadlineMs: number;
  deleteDeadlineMs: number;
  /** Delay before looking again at something that is waiting on another document (resource, parent cluster). */
  waitDelayMs: number;
  /**
   * How long after a Delete started a create sent before it may still land in Clusters Service: a
   * Delete of a resource whose create may be in flight is not done before this has passed.
   */
  createSettleMs: number;
  /**
   * How long the instance that claims an ARM notification has to deliver it before another
   * instance may: longer than a delivery takes, shorter than the wait ARM tolerates after a crash.
   */
  notificationClaimMs: number;
}

/** Everything a processor may use; built once by the composition root. */
export interface PipelineContext {
  operations: OperationsRepository;
  resources: ResourcesRepository;
  subscriptions: SubscriptionsRepository;
  deadLetters: DeadLettersRepository;
  locks: SubscriptionLocks;
  cs: ClustersServiceClient;
  /** Cluster status reads, shared between followers (one call for many clusters). */
  clusterStatus: ClusterStatusBatcher;
  notifier: ArmNotifier;
  taps: TapRegistry;
  metrics: OpstreamMetrics;
  ownWrites: OwnWrites;
  logger: Logger;
  clock: Clock;
  settings: PipelineSettings;
  /** This process among the instances: its name and a token of its own (a restart is another instance). */
  instanceId: string;
  /** When to check Clusters Service first after a dispatch, learned per kind of operation. */
  firstCheck: FirstCheckLearner;
  /**
   * Aborted when this handling must stop (its lease moved to another instance): `cs` calls are
   * cancelled by it, and every Cosmos write checks it first, so a fenced handler changes nothing more.
   */
  fence?: AbortSignal;
}

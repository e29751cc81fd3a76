import type { ClustersServiceClient } from '../clusters-service';
import type { DeadLettersRepository, OperationsRepository, ResourcesRepository, SubscriptionsRepository } from '../cosmos';
import type { SubscriptionLocks } from '../locks';
import type { Logger } from '../logging/logger';
import type { OperationStatus } from '../domain/types';
import type { TimerClock } from '../util/clock';
import type { PipelineEvents } from './events';
import type { ArmNotifier } from '../arm/arm-notifier';
import type { KnownDocuments } from './known-documents';
import type { OwnWrites } from './own-writes';

/** Timing and limits of the pipeline (from configuration). */
export interface PipelineSettings {
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
  /** After an operation ended, how long its ARM notification is retried before it is given up. */
  notificationDeadlineMs: number;
  /** Longest pause between two attempts of one notification (the first is a sixtieth of it). */
  notificationRetryMaxDelayMs: number;
  /** ARM notifications in flight at once: the share of the workers notification work may take. */
  notificationConcurrency: number;
}

/** What the pipeline is built from: the services, made once by the composition root and shared by every handling. */
export interface PipelineServices {
  operations: OperationsRepository;
  resources: ResourcesRepository;
  subscriptions: SubscriptionsRepository;
  deadLetters: DeadLettersRepository;
  locks: SubscriptionLocks;
  /** The shared client; a handling talks to Clusters Service through its own scoped one (`Handling.cs`). */
  cs: ClustersServiceClient;
  notifier: ArmNotifier;
  /** Every step is emitted here once; `src/ops/` turns events into metrics, taps and logs. */
  events: PipelineEvents;
  /** The echo filter: writes of the Operations repository are recorded there by the repository itself. */
  ownWrites: OwnWrites;
  /** The latest versions of the Operations and Resources this instance works on; the repositories tell it what they read and write. */
  known: KnownDocuments;
  logger: Logger;
  clock: TimerClock;
  settings: PipelineSettings;
  /** This process among the instances: its name and a token of its own (a restart is another instance). */
  instanceId: string;
}

/**
 * What one handling of one operation carries, built for it by the reconciler and dropped with it:
 * its logger and Clusters Service client (both scoped to the operation), its fence, and the
 * callbacks through which its queue entry learns what it does.
 */
export interface Handling {
  /** Logs with the operation's ids, its lease and the frontend's correlation ids. */
  readonly logger: Logger;
  /** Cancelled by the fence; sends the operation's correlation headers. */
  readonly cs: ClustersServiceClient;
  /**
   * Aborted when this handling must stop (its lease moved to another instance): `cs` calls are
   * cancelled by it, and every Cosmos write checks it first, so a fenced handler changes nothing more.
   */
  readonly fence?: AbortSignal;
  /** Told each status this handling writes (the operation's queue entry keeps it for the active-operations gauge). */
  readonly onStatus?: (status: OperationStatus) => void;
  /** Told when this handling starts waiting for its subscription lock (`true`) and when the wait ends (`opstream explain` shows it). */
  readonly onLockWait?: (waiting: boolean) => void;
}

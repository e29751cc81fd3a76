import { Observable, Subject } from 'rxjs';
import type { ArmError, OperationRequest, OperationStatus } from '../domain/types';
import type { CorrelationIds } from '../tracing/correlation';

/**
 * Every event the pipeline emits, once per step, with dotted names. This file is the reference;
 * `src/ops/` turns them into metrics, tap streams and log lines (the pipeline writes none by hand).
 *
 * | name | when | payload |
 * |---|---|---|
 * | pipeline.change.seen | a change-feed document arrived, before validation | leaseToken, ids (short strings), status |
 * | pipeline.operation.read | a valid operation was read from the feed or a relist | leaseToken, operation summary |
 * | pipeline.operation.active | an operation with work left was handed to the queue | leaseToken, summary, reactionMs (first sight) |
 * | pipeline.operation.decided | a processor concluded | summary, processor, outcome, afterMs, note |
 * | pipeline.operation.transitioned | a status change was written | summary, previousStatus, status, error |
 * | pipeline.operation.gave-up | an operation kept failing and is dead-lettered | ids, leaseToken, error |
 * | pipeline.notification.sent | an ARM notification was delivered, or an attempt failed | ids, status, delivered, attempt (1 for the first), httpStatus (when ARM answered), reason (failed: connection, timeout, throttled, server-error, redirect, rejected) |
 * | pipeline.notification.given-up | an ARM notification will not be sent (its URI is refused, ARM refused it, or its deadline passed) | ids, status, reason, detail |
 * | pipeline.dead-letter.written | a document was set aside in DeadLetters | ids, reason, error, truncated |
 * | pipeline.lock.waited | a subscription lock was acquired for a write-back | waitedMs |
 * | pipeline.lock.lost | a subscription lock was lost while held | subscriptionId |
 * | pipeline.follow.first-check | the learned delay of a first status check changed or was used | kind, delayMs |
 * | pipeline.follow.completed | a followed operation reached its end in Clusters Service | request, lagMs |
 * | pipeline.queue.size | operations waiting, parked or in flight changed | size |
 * | pipeline.queue.settled | the queue settled a handling: done, requeued (parked), retried after a throw, failed or abandoned at stop | result, durationMs, size |
 * | pipeline.lease.changed | a change-feed lease was acquired, released, lost or split | leaseToken, change, instanceName, owned |
 */

/** Resources in line for a worker: with work already started, and with new work only. */
export interface QueueWaiting {
  started: number;
  fresh: number;
}

/** How the queue settled one handling (the queue's own word for it; metrics count by it). */
export type SettlementResult = 'done' | 'requeued' | 'retried' | 'failed' | 'abandoned';

export const PIPELINE_EVENTS = Object.freeze({
  changeSeen: 'pipeline.change.seen',
  operationRead: 'pipeline.operation.read',
  operationActive: 'pipeline.operation.active',
  operationDecided: 'pipeline.operation.decided',
  operationTransitioned: 'pipeline.operation.transitioned',
  operationGaveUp: 'pipeline.operation.gave-up',
  notificationSent: 'pipeline.notification.sent',
  notificationGivenUp: 'pipeline.notification.given-up',
  deadLetterWritten: 'pipeline.dead-letter.written',
  lockWaited: 'pipeline.lock.waited',
  lockLost: 'pipeline.lock.lost',
  followFirstCheck: 'pipeline.follow.first-check',
  followCompleted: 'pipeline.follow.completed',
  queueSize: 'pipeline.queue.size',
  queueSettled: 'pipeline.queue.settled',
  leaseChanged: 'pipeline.lease.changed',
} as const);

/**
 * Which operation an event is about (strings cut short when they come from an unvalidated document),
 * with the frontend's correlation ids when the document has them.
 */
export interface OperationIds extends CorrelationIds {
  operationId?: string;
  subscriptionId?: string;
  resourceId?: string;
}

export interface OperationSummary extends OperationIds {
  request: OperationRequest;
  status: OperationStatus;
}

type DecisionKind = 'done' | 'again' | 'failed';

/** Why an attempt of an ARM notification failed (the `reason` label of `opstream_arm_notifications_total{outcome="failed"}`). */
export const NOTIFICATION_FAILURE_REASONS = ['connection', 'timeout', 'throttled', 'server-error', 'redirect', 'rejected'] as const;
type NotificationFailureReason = (typeof NOTIFICATION_FAILURE_REASONS)[number];
/** Why an ARM notification is given up (the `reason` label of `opstream_arm_notifications_total{outcome="given-up"}`). */
export const NOTIFICATION_GIVE_UP_REASONS = ['uri', 'scheme', 'host', 'address', 'redirect', 'rejected', 'deadline'] as const;
export type NotificationGiveUpReason = (typeof NOTIFICATION_GIVE_UP_REASONS)[number];

export type PipelineEvent =
  | { type: typeof PIPELINE_EVENTS.changeSeen; leaseToken: string; ids: OperationIds; status?: string }
  | { type: typeof PIPELINE_EVENTS.operationRead; leaseToken: string; operation: OperationSummary }
  | { type: typeof PIPELINE_EVENTS.operationActive; leaseToken: string; operation: OperationSummary; reactionMs?: number }
  | {
      type: typeof PIPELINE_EVENTS.operationDecided;
      operation: OperationSummary;
      processor: string;
      outcome: DecisionKind;
      afterMs?: number;
      note?: string;
    }
  | {
      type: typeof PIPELINE_EVENTS.operationTransitioned;
      operation: OperationSummary;
      previousStatus: OperationStatus;
      error?: ArmError;
    }
  | { type: typeof PIPELINE_EVENTS.operationGaveUp; ids: OperationIds; leaseToken: string; error: string }
  | {
      type: typeof PIPELINE_EVENTS.notificationSent;
      ids: OperationIds;
      status: OperationStatus;
      delivered: boolean;
      reason?: NotificationFailureReason;
      /** Which attempt of this notification it was (1 for the first), counted across instances. */
      attempt: number;
      /** ARM's HTTP status, when it answered. */
      httpStatus?: number;
    }
  | {
      type: typeof PIPELINE_EVENTS.notificationGivenUp;
      ids: OperationIds;
      status: OperationStatus;
      reason: NotificationGiveUpReason;
      detail: string;
    }
  | {
      type: typeof PIPELINE_EVENTS.deadLetterWritten;
      ids: OperationIds;
      leaseToken?: string;
      reason: string;
      error: string;
      deadLetterId: string;
      truncated: boolean;
    }
  | { type: typeof PIPELINE_EVENTS.lockWaited; waitedMs: number }
  | { type: typeof PIPELINE_EVENTS.lockLost; subscriptionId: string }
  | { type: typeof PIPELINE_EVENTS.followFirstCheck; kind: string; delayMs: number }
  | { type: typeof PIPELINE_EVENTS.followCompleted; request: OperationRequest; lagMs: number }
  | { type: typeof PIPELINE_EVENTS.queueSize; size: number; waiting: QueueWaiting }
  | { type: typeof PIPELINE_EVENTS.queueSettled; result: SettlementResult; durationMs: number; size: number; waiting: QueueWaiting }
  | {
      type: typeof PIPELINE_EVENTS.leaseChanged;
      leaseToken: string;
      change: 'acquired' | 'released' | 'lost' | 'split';
      instanceName: string;
      owned: number;
    };

/**
 * The pipeline's event bus. Emitting is synchronous and never throws into the pipeline: a
 * subscriber that throws is reported through `onSubscriberError` and the next event still flows.
 */
export class PipelineEvents {
  private readonly subject = new Subject<PipelineEvent>();
  readonly events$: Observable<PipelineEvent> = this.subject.asObservable();

  constructor(private readonly onSubscriberError: (err: unknown, event: PipelineEvent) => void = () => undefined) {}

  emit(event: PipelineEvent): void {
    try {
      this.subject.next(event);
    } catch (err) {
      this.onSubscriberError(err, event);
    }
  }

  /** At stop: no more events, the subscribers' streams complete. */
  close(): void {
    this.subject.complete();
  }
}

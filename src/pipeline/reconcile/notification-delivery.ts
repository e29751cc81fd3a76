import { claimHeldUntil, pastTime } from '../../domain/document-time';
import type { NotificationDeliveryRecord, Operation, Stored } from '../../domain/types';
import { ATTR, correlationOf, inSpan, SpanKind } from '../../tracing';
import { nextDelayMs, retry, type BackoffPolicy } from '../../util/backoff';
import type { Handling, PipelineServices } from '../context';
import { PIPELINE_EVENTS, type NotificationGiveUpReason, type OperationIds } from '../events';
import type { NotificationAttempt } from '../../arm/arm-notifier';
import { claimNotification, holdingClaim } from './notification-claim';
import { NotificationSlots } from './notification-slots';
import { again, done, type Outcome } from '../queue/outcome';

/**
 * The ARM notification of a terminal operation, one attempt per handling: refused targets and
 * final answers are given up at once (recorded on the Operation, which completes all the same);
 * 408, 429, 5xx and connection failures park the operation for a growing delay (at least what
 * `Retry-After` asks) until `notificationDeadlineMs` after the operation ended, then it is given
 * up too. Attempts in flight are bounded (`NotificationSlots`), so notification work never takes
 * more than its share of the workers.
 *
 * Every attempt is recorded on the Operation (`notificationDelivery`: state, attempts, when, ARM's
 * HTTP status, the answer): a delivery in the write that clears `notificationUri` (no write of its
 * own), a failed attempt in one write of its own, a final failure in the write that gives up.
 * The count is kept in the document, so it goes on where another instance left it.
 */

/** Clearing `notificationUri` after a delivery is retried in place: a re-run would notify ARM again. */
const CLEAR_RETRY: BackoffPolicy = { retries: 6, initialDelayMs: 50, maxDelayMs: 2000, multiplier: 2, jitter: 0.2 };
/** Between attempts of one notification, for a longest pause of `maxDelayMs` (a `Retry-After` asking for longer wins): 1 s doubling to 60 s by default. */
function notificationBackoff(maxDelayMs: number): BackoffPolicy {
  return { retries: Infinity, initialDelayMs: Math.max(1, Math.round(maxDelayMs / 60)), maxDelayMs, multiplier: 2, jitter: 0.2 };
}
/** Unless configured, notifications may take a quarter of the pipeline's workers (at least one). */
export function defaultNotificationConcurrency(pipelineConcurrency: number): number {
  return Math.max(1, Math.floor(pipelineConcurrency / 4));
}
/** Deliveries remembered until their `notificationUri` is cleared (bounded: oldest forgotten first). */
const MAX_UNCLEARED = 10_000;

interface GiveUp {
  reason: NotificationGiveUpReason;
  detail: string;
  /** The attempts behind it (none when nothing was ever sent). */
  delivery?: NotificationDeliveryRecord;
}

export class NotificationDelivery {
  /** Operations whose ARM notification this instance delivered but has not cleared yet, with the delivery's record. */
  private readonly delivered = new Map<string, NotificationDeliveryRecord>();
  /** Failed attempts per operation (paces the retries; the deadline, kept in the document, bounds them). */
  private readonly failures = new Map<string, { count: number; last: string }>();
  private readonly slots: NotificationSlots;

  /** `wake` brings a parked operation's next handling forward (the pipeline's expedite). */
  constructor(limit: number, wake: (operationId: string) => void) {
    this.slots = new NotificationSlots(limit, wake);
  }

  forget(operationId: string): void {
    this.failures.delete(operationId);
    this.slots.forget(operationId);
  }

  /** Handles a terminal operation: delivers, parks, or gives up its notification; `done` once none is left. */
  async handle(ctx: PipelineServices, handling: Handling, op: Stored<Operation>): Promise<Outcome> {
    const uri = op.notificationUri;
    if (!uri) return done('terminal');
    // A handling that delivered but could not clear (a 503 on the write) must not deliver twice.
    const deliveredRecord = this.delivered.get(op.id);
    if (deliveredRecord) return this.clear(ctx, handling, op, deliveredRecord);
    const refusal = ctx.notifier.refusalOf(uri);
    if (refusal) return this.giveUp(ctx, handling, op, refusal);
    // From when it ended, as this instance's clock allows: a future lastTransitionTime counts as now.
    const deadline = pastTime(op.lastTransitionTime, ctx.clock.now(), op) + ctx.settings.notificationDeadlineMs;
    if (ctx.clock.now() >= deadline) {
      const last = this.failures.get(op.id)?.last ?? op.notificationDelivery?.answer;
      return this.giveUp(ctx, handling, op, {
        reason: 'deadline',
        detail: `not delivered within notifications.deadlineMs (${ctx.settings.notificationDeadlineMs} ms) of the operation's end${last ? `; last attempt: ${last}` : ''}`,
        ...(op.notificationDelivery ? { delivery: { ...op.notificationDelivery, state: 'failed' as const } } : {}),
      });
    }
    // refusalOf passed: the URI parses.
    const origin = new URL(uri).origin;
    if (!this.slots.tryTake(op.id, origin, this.failures.has(op.id))) {
      // Woken when a slot frees; the wait is the longest an attempt holds one, should that wake be missed.
      return again(
        ctx.notifier.timeoutMs,
        `waiting for one of ${this.slots.limit} ARM notification slots (${this.slots.perOrigin} per origin)`,
      );
    }
    try {
      const claim = await claimNotification(ctx, handling, op);
      if (claim.kind === 'gone') return done('notified by another instance');
      if (claim.kind === 'held') {
        const waitMs = Math.max(0, claim.untilMs - ctx.clock.now());
        return again(waitMs, `ARM notification claimed by ${claim.owner} for ${waitMs} ms`);
      }
      const claimed = claim.op;
      return await holdingClaim(ctx, handling, claimed, async () => {
        const number = (claimed.notificationDelivery?.attempts ?? 0) + 1;
        const attempt = await this.attempt(ctx, handling, claimed, number);
        const record = recordOf(attempt, number, ctx.clock.now(), ctx.instanceId);
        switch (attempt.kind) {
          case 'delivered':
            this.failures.delete(claimed.id);
            this.delivered.set(claimed.id, record);
            if (this.delivered.size > MAX_UNCLEARED) this.delivered.delete(this.delivered.keys().next().value as string);
            return this.clear(ctx, handling, claimed, record);
          case 'refused':
            // A target refused before anything was sent leaves no attempt to record.
            return this.giveUp(
              ctx,
              handling,
              claimed,
              attempt.reason === 'redirect' || attempt.reason === 'rejected' ? { ...attempt, delivery: record } : attempt,
            );
          case 'retry':
            await this.recordFailure(ctx, handling, claimed, record);
            return this.later(ctx, claimed, attempt, deadline);
        }
      });
    } finally {
      this.slots.release(origin);
    }
  }

  /** Parks the operation until its next attempt: backoff, at least `Retry-After`, never past the deadline. */
  private later(
    ctx: PipelineServices,
    op: Stored<Operation>,
    attempt: Extract<NotificationAttempt, { kind: 'retry' }>,
    deadline: number,
  ): Outcome {
    const count = (this.failures.get(op.id)?.count ?? 0) + 1;
    this.failures.set(op.id, { count, last: attempt.detail });
    const delayMs = Math.min(
      nextDelayMs(notificationBackoff(ctx.settings.notificationRetryMaxDelayMs), count - 1, attempt.retryAfterMs),
      Math.max(0, deadline - ctx.clock.now()),
    );
    return again(delayMs, `ARM notification attempt ${count} failed (${attempt.detail}); next in ${delayMs} ms`);
  }

  /**
   * Records a failed attempt on the Operation (one write). A failure to write is only logged: the
   * record is for people, and the next attempt's record carries the count on.
   */
  private async recordFailure(
    ctx: PipelineServices,
    handling: Handling,
    from: Stored<Operation>,
    record: NotificationDeliveryRecord,
  ): Promise<void> {
    try {
      await ctx.operations.recordNotificationAttempt(from.partitionKey, from.id, record, ctx.instanceId, { startFrom: from });
    } catch (err) {
      handling.logger.warn('recording the failed ARM notification attempt failed', { error: (err as Error).message });
    }
  }

  /** One attempt (the `number`th of this notification), in a span, reported as `pipeline.notification.sent` when a request went out. */
  private attempt(ctx: PipelineServices, handling: Handling, op: Stored<Operation>, number: number): Promise<NotificationAttempt> {
    return inSpan(
      'ARM notification',
      { kind: SpanKind.CLIENT, attributes: { [ATTR.httpMethod]: 'POST', [ATTR.status]: op.status } },
      async (span) => {
        // Once the lease moved its new owner notifies, so this handling sends nothing more; but a
        // request already sent runs to its end (the claim, kept alive meanwhile, holds the new owner back).
        handling.fence?.throwIfAborted();
        const attempt = await ctx.notifier.deliver(op, handling.fence);
        if (attempt.status !== undefined) span.setAttribute(ATTR.httpStatus, attempt.status);
        if (attempt.kind !== 'delivered') span.setAttribute(ATTR.reason, attempt.reason);
        const event = {
          type: PIPELINE_EVENTS.notificationSent,
          ids: idsOf(op),
          status: op.status,
          attempt: number,
          ...(attempt.status !== undefined ? { httpStatus: attempt.status } : {}),
        } as const;
        if (attempt.kind === 'delivered') ctx.events.emit({ ...event, delivered: true });
        else if (attempt.kind === 'retry') ctx.events.emit({ ...event, delivered: false, reason: attempt.reason });
        // A refused target sent nothing: only its giving up is reported.
        else if (attempt.reason === 'redirect' || attempt.reason === 'rejected')
          ctx.events.emit({ ...event, delivered: false, reason: attempt.reason });
        return attempt;
      },
    );
  }

  /**
   * Records a delivery by removing `notificationUri` and writing `record` in the same write;
   * retried in place, since a re-run would notify ARM again.
   */
  private async clear(
    ctx: PipelineServices,
    handling: Handling,
    from: Stored<Operation>,
    record: NotificationDeliveryRecord,
  ): Promise<Outcome> {
    await retry(
      (attempt) => ctx.operations.clearNotificationUri(from.partitionKey, from.id, record, attempt === 0 ? { startFrom: from } : {}),
      isRetriableWrite,
      CLEAR_RETRY,
      { onRetry: (err) => handling.logger.warn('clearing notificationUri failed; retrying', { error: (err as Error).message }) },
    );
    this.delivered.delete(from.id);
    this.forget(from.id);
    return done('notified');
  }

  /**
   * Clears `notificationUri` unsent, recording why in `notificationGivenUp`, and reports it; the
   * operation is done. Left alone while another instance's claim is live (it may be delivering).
   */
  private async giveUp(ctx: PipelineServices, handling: Handling, from: Stored<Operation>, why: GiveUp): Promise<Outcome> {
    const now = ctx.clock.now();
    const record = { reason: why.reason, detail: why.detail.slice(0, 1024), at: new Date(now).toISOString() };
    const result = await retry(
      (attempt) =>
        ctx.operations.update(
          from.partitionKey,
          from.id,
          (current) => {
            if (!current.notificationUri) return undefined;
            const claim = current.notificationClaim;
            if (claim && claim.owner !== ctx.instanceId && claimHeldUntil(claim.until, now, ctx.settings.notificationClaimMs) > now)
              return undefined;
            const next: Operation = { ...current, notificationGivenUp: record };
            if (why.delivery)
              next.notificationDelivery = {
                ...why.delivery,
                attempts: Math.max(why.delivery.attempts, current.notificationDelivery?.attempts ?? 0),
              };
            delete next.notificationUri;
            delete next.notificationClaim;
            return next;
          },
          attempt === 0 ? { startFrom: from } : {},
        ),
      isRetriableWrite,
      CLEAR_RETRY,
      {
        onRetry: (err) =>
          handling.logger.warn('recording the ARM notification given up failed; retrying', { error: (err as Error).message }),
      },
    );
    if (result.outcome === 'unchanged' && result.document.notificationUri) {
      const claim = result.document.notificationClaim;
      const until = claim ? claimHeldUntil(claim.until, now, ctx.settings.notificationClaimMs) : now + ctx.settings.notificationClaimMs;
      return again(
        Math.max(0, until - now),
        `ARM notification claimed by ${result.document.notificationClaim?.owner ?? 'another instance'}`,
      );
    }
    this.forget(from.id);
    if (result.outcome !== 'updated') return done('notification cleared by another instance');
    ctx.events.emit({
      type: PIPELINE_EVENTS.notificationGivenUp,
      ids: idsOf(from),
      status: from.status,
      reason: why.reason,
      detail: record.detail,
    });
    return done(`ARM notification given up (${why.reason})`);
  }
}

/** The record of one attempt: `delivered`, or `failing` (a `refused` one becomes `failed` where it is given up). */
function recordOf(attempt: NotificationAttempt, attempts: number, now: number, by: string): NotificationDeliveryRecord {
  return {
    state: attempt.kind === 'delivered' ? 'delivered' : attempt.kind === 'retry' ? 'failing' : 'failed',
    attempts,
    at: new Date(now).toISOString(),
    ...(attempt.status !== undefined ? { httpStatus: attempt.status } : {}),
    ...(attempt.kind !== 'delivered' ? { answer: attempt.detail.slice(0, 1024) } : {}),
    by,
  };
}

function isRetriableWrite(err: unknown): { retry: boolean } {
  return { retry: err instanceof Error && 'retriable' in err && err.retriable === true };
}

function idsOf(op: Stored<Operation>): OperationIds {
  return { operationId: op.id, subscriptionId: op.partitionKey, resourceId: op.externalId, ...correlationOf(op) };
}

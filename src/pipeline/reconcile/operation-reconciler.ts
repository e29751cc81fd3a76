import { OPERATION_LIFETIME_MS, parseDocumentTime, pastTime } from '../../domain/document-time';
import { isInvalidDocumentError } from '../../cosmos/errors';
import { parseArmResourceId } from '../../domain/ids';
import { isTerminal } from '../../domain/statuses';
import { takesOverResource } from '../../domain/requests';
import { UnsupportedOperationError } from '../../domain/errors';
import type { Operation, OperationRequest, OperationStatus, Resource, Stored } from '../../domain/types';
import { trace } from '@opentelemetry/api';
import {
  ATTR,
  contextUnder,
  correlationHeaders,
  correlationOf,
  failSpan,
  inSpan,
  operationAttributes,
  type CorrelationIds,
  type SpanContext,
} from '../../tracing';
import type { Handling, PipelineServices } from '../context';
import { PIPELINE_EVENTS } from '../events';
import { deadLetter } from '../dead-letter';
import { summary } from '../operation-summary';
import { FollowBook } from './follow/follow-book';
import type { CsStateHint } from '../cs-hints';
import type { FollowState } from './follow/schedule';
import { NotificationDelivery } from './notification-delivery';
import { Outcome, again, done } from '../queue/outcome';
import { endOperation } from './end-operation';
import type { OperationProcessor, ProcessorKit } from './processor';
import { route, supportedOperations, supports } from './router';
import { SUPERSEDED } from './superseded';
import { recordDispatched } from './dispatch-record';
import { underLock, writeBack, type TransitionChange } from './write-back';

/** The queue's item for one operation: which one it is, and what this instance knows of it. */
export interface OperationRef extends CorrelationIds {
  partitionKey: string;
  id: string;
  /** For ordering within a resource. */
  startTime: string;
  /** ARM id of the resource (log context). */
  resourceId: string;
  /** The change-feed lease whose range holds the operation (log context). */
  leaseToken: string;
  request: OperationRequest;
  /** The status as this instance last read or wrote it (the active-operations gauge shows it). */
  status: OperationStatus;
  /**
   * The span of the change-feed batch or relist that brought this version of the operation: its
   * first handling joins that trace; later handlings start their own, linked to it.
   */
  cause?: SpanContext;
  /** Set once the first handling joined `cause`'s trace. */
  causeJoined?: boolean;
}

/**
 * Handles one operation key: takes the Operation and its Resource as last known (else reads them), settles what needs no
 * processor (notification of a terminal operation, a superseded operation, a missing Resource, a
 * passed deadline), then hands over to the processor for its resource type × request × phase.
 */
export class OperationReconciler {
  /** The status follow's memory per operation, and the events that wake it. */
  private readonly follows: FollowBook;
  /** The ARM notifications of terminal operations. */
  private readonly notifications: NotificationDelivery;
  /** Handlings waiting for their subscription lock now: since when (ms), by operation id. */
  private readonly lockWaits = new Map<string, number>();

  /** `wake` brings parked operations' next handling forward (the scheduler's expedite). */
  constructor(
    private readonly ctx: PipelineServices,
    private readonly registry: readonly OperationProcessor[],
    wake: (operationIds: ReadonlySet<string>) => void = () => undefined,
  ) {
    this.follows = new FollowBook(ctx.clock);
    this.notifications = new NotificationDelivery(ctx.settings.notificationConcurrency, (id) => wake(new Set([id])));
  }

  /**
   * The operations whose status follow watches `hint.href` and for which `hint.state` is worth a check
   * now; each is marked woken (its next check was brought forward). The hint is remembered briefly.
   */
  wake(hint: CsStateHint): Set<string> {
    return this.follows.wake(hint);
  }

  /** What this instance remembers of an operation's follow and whether it waits for its lock now (`opstream explain`). */
  describe(operationId: string): { follow?: Readonly<FollowState>; lockWaitSince?: number } {
    return { follow: this.follows.of(operationId), lockWaitSince: this.lockWaits.get(operationId) };
  }

  /**
   * Forgets per-operation memory (the operation is done, given up, or its lease is gone; with
   * `resourceId`, what is known of its Resource too).
   */
  forget(operationId: string, resourceId?: string): void {
    this.follows.forget(operationId);
    this.notifications.forget(operationId);
    this.ctx.known.forget(operationId, resourceId);
  }

  /** `fence` aborts when the operation's lease moved: the handling stops before its next side effect. */
  async reconcile(ref: OperationRef, fence?: AbortSignal): Promise<Outcome> {
    // One trace per handling: the first joins the batch (or relist) that brought the operation in.
    const parent = ref.cause && !ref.causeJoined ? ref.cause : undefined;
    ref.causeJoined = true;
    const fields = {
      operationId: ref.id,
      subscriptionId: ref.partitionKey,
      resourceId: ref.resourceId,
      leaseToken: ref.leaseToken,
      ...correlationOf(ref),
    };
    const options = {
      parent: contextUnder(parent),
      links: ref.cause && !parent ? [{ context: ref.cause }] : [],
      attributes: operationAttributes({ ...fields, request: ref.request, status: ref.status }),
    };
    return inSpan(`reconcile ${ref.request}`, options, async (span) => {
      const outcome = await this.handle(ref, fields, fence);
      span.setAttribute(ATTR.status, ref.status);
      span.setAttribute(ATTR.outcome, outcome.kind);
      if (outcome.kind !== 'failed' && outcome.note) span.setAttribute(ATTR.note, outcome.note);
      if (outcome.kind === 'failed') failSpan(span, outcome.error);
      return outcome;
    });
  }

  private async handle(ref: OperationRef, fields: Record<string, string>, fence: AbortSignal | undefined): Promise<Outcome> {
    // Every line logged about this operation, here and in its processor, and every Clusters Service
    // call made for it, say which one it is (its ids, its lease, the frontend's correlation ids).
    const logger = this.ctx.logger.child(fields);
    const handling: Handling = {
      logger,
      cs: this.ctx.cs.scoped({ signal: fence, headers: correlationHeaders(ref), logger }),
      ...(fence ? { fence } : {}),
      onStatus: (status) => (ref.status = status),
      onLockWait: (waiting) => void (waiting ? this.lockWaits.set(ref.id, this.ctx.clock.now()) : this.lockWaits.delete(ref.id)),
    };
    const ctx = this.ctx;
    // The versions this instance last read or wrote, or the change feed brought (KnownDocuments says
    // why they may be trusted); read only when none is known.
    let op = ctx.known.operation(ref.id);
    try {
      op ??= await ctx.operations.read(ref.partitionKey, ref.id);
    } catch (err) {
      if (!isInvalidDocumentError(err)) throw err;
      await deadLetter(ctx, err.document, 'validation', err, ref.leaseToken);
      return done('invalid document dead-lettered');
    }
    if (!op) return this.letGo(ref.id, 'operation document gone');
    ref.status = op.status;
    if (isTerminal(op.status)) {
      const outcome = await this.notifications.handle(ctx, handling, op);
      if (outcome.kind !== 'again') this.forget(op.id);
      return outcome;
    }

    const arm = parseArmResourceId(op.externalId);
    // Nothing here can do it: set aside at once (never left to its deadline, never ended with another's outcome).
    if (!supports(this.registry, arm.resourceType, op.request)) {
      const error = new UnsupportedOperationError(arm.resourceType, op.request, supportedOperations(this.registry));
      await deadLetter(ctx, op, 'unsupported', error, ref.leaseToken);
      return this.letGo(op.id, error.message);
    }
    const resource = ctx.known.resourceOf(op.externalId) ?? (await ctx.resources.findFor(op.partitionKey, op.externalId));
    const settled = await this.settleWithoutProcessor(ctx, handling, op, resource);
    if (settled) return settled;

    const processor = route(this.registry, arm.resourceType, op);
    // Past its deadline, an operation Clusters Service may have finished meanwhile (the follow looks
    // at most every follow.maxDelayMs, and the queue may be behind) gets one last look: its processor
    // reads CS and writes what it finds; only if CS is not done does the deadline fail it. One that was
    // never dispatched fails at once: nothing may be sent to CS after the deadline.
    const late = ctx.clock.now() > this.deadlineOf(op, resource);
    if (late && (!processor || processor.phase === 'dispatch')) return this.failAtDeadline(ctx, handling, op, resource);
    if (!processor) {
      // Supported, but not in this phase (an Update's follow before its dispatch wrote Updating, say): a defect.
      logger.warn(`no processor for ${arm.resourceType} ${op.request} in this phase; left as is`, { status: op.status });
      return this.letGo(op.id, `no processor for ${op.request} in this phase`);
    }
    const follow = this.follows.begin(op.id);
    trace.getActiveSpan()?.setAttribute(ATTR.processor, processor.name);
    const startedAt = ctx.clock.now();
    // The document this handling wrote when it ended the operation (it carries this instance's
    // notification claim): the notification goes out from it, without another handling and read.
    let endWritten: Stored<Operation> | undefined;
    const kit = kitFor(ctx, handling, (written) => {
      if (written.id === op.id && isTerminal(written.status)) endWritten = written;
    });
    let outcome = await processor.reconcile(
      { op, resource: resource as Stored<Resource>, arm, follow, logger, ...(late ? { late } : {}) },
      kit,
    );
    // An event that arrived while this handling ran, before it said what it watches, still counts.
    if (outcome.kind === 'again' && outcome.afterMs > 0) {
      const missed = this.follows.missedSince(follow, startedAt);
      if (missed) outcome = again(0, `${outcome.note ?? 'again'}; Clusters Service reported ${missed} meanwhile`);
    }
    if (late && outcome.kind === 'again') {
      const current = await ctx.operations.read(op.partitionKey, op.id);
      if (current && !isTerminal(current.status)) {
        const latest = (await ctx.resources.findFor(current.partitionKey, current.externalId)) ?? resource;
        return this.failAtDeadline(ctx, handling, current, latest);
      }
    }
    ctx.events.emit({
      type: PIPELINE_EVENTS.operationDecided,
      operation: summary(op),
      processor: processor.name,
      outcome: outcome.kind,
      ...(outcome.kind === 'again' ? { afterMs: outcome.afterMs } : {}),
      ...(outcome.kind !== 'failed' && outcome.note ? { note: outcome.note } : {}),
    });
    if (endWritten && outcome.kind === 'again' && outcome.afterMs === 0) {
      ref.status = endWritten.status;
      const notified = await this.notifications.handle(ctx, handling, endWritten);
      if (notified.kind !== 'again') this.forget(op.id);
      return notified;
    }
    if (outcome.kind !== 'again') this.forget(op.id);
    return outcome;
  }

  private async settleWithoutProcessor(
    ctx: PipelineServices,
    handling: Handling,
    op: Stored<Operation>,
    resource: Stored<Resource> | undefined,
  ): Promise<Outcome | undefined> {
    const now = ctx.clock.now();
    if (!resource) {
      // The frontend writes the Resource before the Operation; a Delete whose Resource is gone is
      // done once Clusters Service holds nothing under the resource's name either.
      const arm = parseArmResourceId(op.externalId);
      const removeLeftovers = op.request === 'Delete' ? route(this.registry, arm.resourceType, op)?.removeLeftovers : undefined;
      if (removeLeftovers) {
        const remaining = await removeLeftovers(arm, kitFor(ctx, handling));
        if (remaining > 0) return again(ctx.settings.waitDelayMs, `deleting ${remaining} object(s) Clusters Service still holds`);
        return this.endOperation(ctx, handling, op, { status: 'Succeeded', skipResource: true });
      }
      if (now > this.deadlineOf(op, undefined)) {
        return this.endOperation(ctx, handling, op, {
          status: 'Failed',
          error: { code: 'InternalServerError', message: `The resource ${op.externalId} was never written` },
          skipResource: true,
        });
      }
      return again(ctx.settings.waitDelayMs, 'resource document not written yet');
    }
    if (takesOverResource(op.request) && resource.activeOperationId !== op.id) {
      if (resource.activeOperationId)
        return this.endOperation(ctx, handling, op, { status: 'Canceled', error: { ...SUPERSEDED }, skipResource: true });
      // Cleared by this operation's own terminal write-back, then a crash before the Operation write:
      // repair — only when the Resource's terminal state is this operation's (lastOperationId; one
      // written before it was recorded names none, and is taken to be the last to take it over).
      // An operation that does not take the Resource over (its processor says so) never gets here.
      if (isTerminal(resource.provisioningState) && (resource.lastOperationId ?? op.id) === op.id)
        return this.endOperation(ctx, handling, op, { status: resource.provisioningState, skipResource: true });
    }
    return undefined;
  }

  /** Ends an operation whose deadline passed with CS not done, saying what CS last reported. */
  private failAtDeadline(
    ctx: PipelineServices,
    handling: Handling,
    op: Stored<Operation>,
    resource: Stored<Resource> | undefined,
  ): Promise<Outcome> {
    const last = this.follows.of(op.id)?.lastDescription;
    const what = op.request === 'Delete' ? 'deletion' : op.request === 'Create' ? 'provisioning' : 'update';
    const message = `The ${what} did not complete before its deadline${last ? `; last state reported: ${last}` : ''}`;
    return this.endOperation(ctx, handling, op, { status: 'Failed', error: { code: 'InternalServerError', message } }, resource);
  }

  /**
   * When the operation fails if not done: the Resource's own deadline, else its start + the setting.
   * Measured on the servers' clocks: a `startTime` in the future counts as the document's last write
   * (or now, if earlier), and no deadline lies
   * past the start + OPERATION_LIFETIME_MS (the Operations container's TTL: the document is gone then).
   */
  private deadlineOf(op: Operation, resource: Resource | undefined): number {
    const { settings, clock } = this.ctx;
    const start = pastTime(op.startTime, clock.now(), op);
    const own =
      op.request === 'Delete'
        ? resource?.deleteOperationCompletionDeadline
        : op.request === 'Create'
          ? resource?.createOperationCompletionDeadline
          : undefined;
    const deadline = own
      ? parseDocumentTime(own)
      : start + (op.request === 'Delete' ? settings.deleteDeadlineMs : settings.createDeadlineMs);
    return Math.min(deadline, start + OPERATION_LIFETIME_MS);
  }

  /** Ends the operation without a processor (writes its terminal status), then has ARM notified right away. */
  private async endOperation(
    ctx: PipelineServices,
    handling: Handling,
    op: Stored<Operation>,
    change: TransitionChange & { status: 'Succeeded' | 'Failed' | 'Canceled' },
    resource?: Stored<Resource>,
  ): Promise<Outcome> {
    const outcome = await endOperation(kitFor(ctx, handling), op, change, resource);
    this.forget(op.id);
    return outcome;
  }

  /** Nothing to write: forgets the operation here, and the queue lets it go (`done`). */
  private letGo(operationId: string, note: string): Outcome {
    this.forget(operationId);
    return done(note);
  }
}

/**
 * The narrow kit a processor gets for one handling (see `processor.ts`); `onWritten` is told of
 * every Operation document its write-backs wrote.
 */
function kitFor(ctx: PipelineServices, handling: Handling, onWritten?: (operation: Stored<Operation>) => void): ProcessorKit {
  return {
    operations: ctx.operations,
    resources: ctx.resources,
    subscriptions: ctx.subscriptions,
    cs: handling.cs,
    clock: ctx.clock,
    settings: ctx.settings,
    events: ctx.events,
    writeBack: async (op, change, resource) => {
      const result = await writeBack(ctx, handling, op, change, resource);
      if (result.operation) onWritten?.(result.operation);
      return result;
    },
    recordDispatched: (op, internalId, status) => recordDispatched(ctx, handling, op, internalId, status),
    underLock: (partitionKey, fn) => underLock(ctx, handling, partitionKey, fn),
    checkFence: () => handling.fence?.throwIfAborted(),
  };
}

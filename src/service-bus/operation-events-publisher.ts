import { RetryMode, isServiceBusError, type ServiceBusClient, type ServiceBusMessage, type ServiceBusSender } from '@azure/service-bus';
import type { DeadLetterInput, DeadLetterWriteResult } from '../cosmos/dead-letters-repository';
import { OpstreamError } from '../domain/errors';
import type { Logger } from '../logging/logger';
import type { Operation, OperationEvent } from '../domain/types.generated';
import { check } from '../schemas/validator';
import { operationEventMessage } from './operation-event-message';
import { closeBounded } from './close-bounded';
import { accessFix, createServiceBusClient, lastAttemptError, type ServiceBusAccess } from './service-bus-access';

export interface OperationEventsPublisherOptions {
  access: ServiceBusAccess;
  topic: string;
  logger: Logger;
  /** Each event Service Bus accepted, with the time since its transition was written. */
  onPublished?: (event: OperationEvent, lagMs: number) => void;
  /** A failed send (the batch is retried by the caller). */
  onError?: (error: Error) => void;
  /** Where an event that cannot be sent is set aside (see the class comment). */
  deadLetters: { write(input: DeadLetterInput): Promise<DeadLetterWriteResult> };
  /** Each transition set aside instead of published, with the outcome of the dead letter's write. */
  onDeadLettered?: (input: DeadLetterInput, result: DeadLetterWriteResult) => void;
  now?: () => number;
}

/** The Operation version an event is built from: what names its dead letter. */
type SourceVersion = Pick<Operation, 'id' | 'partitionKey' | '_etag' | '_lsn'>;

/** The event of one Operation version is larger than the topic takes, even with its free text cut. */
class OperationEventTooLargeError extends OpstreamError {
  readonly retriable = false;
  constructor(
    readonly operationId: string,
    readonly eventBytes: number,
    readonly maxBytes: number,
    topic: string,
  ) {
    super(
      `the event of Operation ${operationId} is ${eventBytes} bytes of JSON; topic ${topic} takes messages of at most ${maxBytes} bytes (with their properties)`,
      {
        context: { operationId, eventBytes, maxBytes, topic },
      },
    );
  }
}

/** The `source.container` of a dead-lettered event: the topic it was meant for. */
function eventDeadLetterContainer(topic: string): string {
  return `${EVENT_CONTAINER_PREFIX}${topic}`;
}

const EVENT_CONTAINER_PREFIX = 'topic:';

/** The topic a dead-lettered event was meant for, from its `source.container`; undefined for a Cosmos container. */
export function topicOfDeadLetterContainer(container: string): string | undefined {
  return container.startsWith(EVENT_CONTAINER_PREFIX) ? container.slice(EVENT_CONTAINER_PREFIX.length) : undefined;
}

/**
 * The SDK's own retries stay short (a long one would hold the change-feed batch without a heartbeat);
 * the change-feed handler retry policy backs off between whole attempts instead.
 */
const SEND_RETRY = { mode: RetryMode.Exponential, maxRetries: 1, retryDelayInMs: 500, maxRetryDelayInMs: 2000, timeoutInMs: 10_000 };
/** Sessions sent at once within one change-feed batch. */
const SESSION_CONCURRENCY = 8;
/** Transitions this process already had accepted: a rewrite of the same transition is not even sent. */
const RECENT_MAX = 10_000;
const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * Sends the transitions carried by a batch of Operation versions to the topic, and resolves only
 * once Service Bus accepted every one of them: its caller (a change-feed handler) checkpoints after
 * that, so a failure or a crash before it means the batch is read and sent again, never skipped.
 *
 * Per resource (session) the messages go in feed order, one send at a time; resources go in
 * parallel. A send that fails rejects the whole call: what was accepted before is sent again on the
 * retry and dropped by the topic's duplicate detection (same `messageId`).
 *
 * A transition whose event no retry can send (larger than a Service Bus message may be, although
 * its free text is cut; or no valid event at all) is dead-lettered as an event, reason
 * `publication`, in DeadLetters (source container `topic:{topic}`, naming the Operation version),
 * and the range moves on: holding it would stop every later event of the range for good.
 */
export class OperationEventsPublisher {
  private readonly client: ServiceBusClient;
  private readonly sender: ServiceBusSender;
  private readonly recent = new Set<string>();
  private readonly now: () => number;
  private lastErrorLogAt = -Infinity;

  constructor(private readonly options: OperationEventsPublisherOptions) {
    this.now = options.now ?? Date.now;
    this.client = createServiceBusClient(options.access, { retryOptions: SEND_RETRY });
    this.sender = this.client.createSender(options.topic);
  }

  /** Resolves once every transition in `documents` is accepted (or was before); rejects on the first failed send. */
  async publish(documents: readonly unknown[], signal?: AbortSignal): Promise<void> {
    const sessions = new Map<string, ServiceBusMessage[]>();
    for (const doc of documents) {
      const op = check('operation', doc);
      // An invalid document is the main pipeline's to dead-letter; it carries no transition to publish.
      if (!op.ok) continue;
      let message: ServiceBusMessage;
      try {
        message = operationEventMessage(op.value);
      } catch (err) {
        // Retrying cannot fix a document whose event breaks the contract; holding the range would stop every later event.
        await this.deadLetter(op.value, op.value, err);
        continue;
      }
      SOURCES.set(message, { id: op.value.id, partitionKey: op.value.partitionKey, _etag: op.value._etag, _lsn: op.value._lsn });
      const id = String(message.messageId);
      if (this.recent.has(id) || sessions.get(String(message.sessionId))?.some((m) => m.messageId === id)) continue;
      const list = sessions.get(String(message.sessionId)) ?? [];
      list.push(message);
      sessions.set(String(message.sessionId), list);
    }
    const groups = [...sessions.values()];
    let failure: unknown;
    for (let i = 0; i < groups.length && failure === undefined; i += SESSION_CONCURRENCY) {
      const settled = await Promise.allSettled(groups.slice(i, i + SESSION_CONCURRENCY).map((g) => this.sendInOrder(g, signal)));
      failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')?.reason;
    }
    if (failure !== undefined) {
      this.failed(failure as Error);
      throw failure;
    }
  }

  async close(): Promise<void> {
    await closeBounded(this.client, () => this.sender.close());
  }

  /** One session's messages, in order: as few batches as fit, each sent before the next is built. */
  private async sendInOrder(messages: ServiceBusMessage[], signal?: AbortSignal): Promise<void> {
    let rest = messages;
    while (rest.length > 0) {
      const batch = await this.sender.createMessageBatch({ abortSignal: signal });
      let n = 0;
      while (n < rest.length && batch.tryAddMessage(rest[n] as ServiceBusMessage)) n++;
      if (n === 0) {
        // Alone in an empty batch and still too large: no retry makes it fit. Set aside; the next ones go on.
        const message = rest[0] as ServiceBusMessage;
        const event = message.body as OperationEvent;
        const bytes = Buffer.byteLength(JSON.stringify(event), 'utf8');
        await this.deadLetter(
          sourceOf(message),
          event,
          new OperationEventTooLargeError(event.id, bytes, batch.maxSizeInBytes, this.options.topic),
        );
        this.remember(String(message.messageId));
        rest = rest.slice(1);
        continue;
      }
      await this.sender.sendMessages(batch, { abortSignal: signal });
      const acceptedAt = this.now();
      for (const m of rest.slice(0, n)) this.accepted(m, acceptedAt);
      rest = rest.slice(n);
    }
  }

  /** Sets the transition of `op` aside as an event (never throws: the dead-letter repository does not). */
  private async deadLetter(op: SourceVersion, document: unknown, error: unknown): Promise<void> {
    const err = error instanceof Error ? error : new Error(String(error));
    const input: DeadLetterInput = {
      container: eventDeadLetterContainer(this.options.topic),
      document,
      reason: 'publication',
      error: err,
      sourceVersion: { id: op.id, partitionKey: op.partitionKey, etag: op._etag, lsn: op._lsn },
    };
    const result = await this.options.deadLetters.write(input);
    this.options.onDeadLettered?.(input, result);
    this.options.logger.error('an Operation event cannot be published; dead-lettered as an event, the feed moves on', {
      operationId: op.id,
      subscriptionId: op.partitionKey,
      topic: this.options.topic,
      deadLetterId: result.id,
      deadLetter: result.outcome,
      error: err.message,
    });
  }

  private remember(messageId: string): void {
    this.recent.add(messageId);
    if (this.recent.size > RECENT_MAX) this.recent.delete(this.recent.values().next().value as string);
  }

  private accepted(message: ServiceBusMessage, at: number): void {
    this.remember(String(message.messageId));
    const event = message.body as OperationEvent;
    this.options.onPublished?.(event, Math.max(0, at - Date.parse(event.lastTransitionTime)));
  }

  private failed(failure: Error): void {
    const error = lastAttemptError(failure) as Error;
    this.options.onError?.(error);
    const now = this.now();
    if (now - this.lastErrorLogAt < ERROR_LOG_INTERVAL_MS) return;
    this.lastErrorLogAt = now;
    this.options.logger.warn(
      `Operation events not accepted by Service Bus; retrying with backoff, nothing is skipped${hintFor(error, this.options.access, this.options.topic)}`,
      {
        topic: this.options.topic,
        error: error.message,
      },
    );
  }
}

/** The Operation version a message was built from (kept on it by `publish`). */
function sourceOf(message: ServiceBusMessage): SourceVersion {
  const source = SOURCES.get(message);
  const event = message.body as OperationEvent;
  return source ?? { id: event.id, partitionKey: event.subscriptionId };
}

/** Messages → the Operation version each was built from, without putting it on the message itself. */
const SOURCES = new WeakMap<ServiceBusMessage, SourceVersion>();

/** What the operator can do about errors a retry will not fix. */
function hintFor(failure: Error, access: ServiceBusAccess, topic: string): string {
  const error = lastAttemptError(failure);
  if (!isServiceBusError(error)) return '';
  if (error.code === 'MessagingEntityNotFound') {
    return ` (topic ${topic} does not exist in the namespace: create it with duplicate detection on, or set serviceBus.operationEventsTopic / OPSTREAM_SERVICE_BUS_OPERATION_EVENTS_TOPIC)`;
  }
  const fix = accessFix(access, error, 'Send', topic);
  return fix ? ` (${fix})` : '';
}

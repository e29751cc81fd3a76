/**
 * Sends the simulator's state-change events to a Service Bus topic through the real SDK, in the
 * order they happened: one batch in flight at a time, of whatever queued meanwhile. Events are
 * hints (the receiver reads the status anyway), so a send that fails after the SDK's own retries is
 * counted and dropped, and past `maxQueued` the oldest waiting events are dropped: an outage costs
 * events, never the simulator's answers.
 */
import { createHash } from 'node:crypto';
import { ServiceBusClient, type ServiceBusMessage, type ServiceBusSender } from '@azure/service-bus';
import type { CsStateEvent } from './state-events';

export interface EventPublisherOptions {
  connectionString: string;
  /** @defaultValue "clusters-service-events" */
  topic?: string;
  /** Events waiting beyond this are dropped, oldest first. @defaultValue 10_000 */
  maxQueued?: number;
  /** One send's deadline, SDK retries included. @defaultValue 5000 */
  sendTimeoutMs?: number;
}

export interface EventPublisherCounts {
  /** Events Service Bus accepted. */
  readonly published: number;
  /** Events lost: sends that failed for good, and events dropped from a full queue. */
  readonly failed: number;
  /** Events waiting or in flight. */
  readonly pending: number;
  /** The last send failure, if any. */
  readonly lastError?: string;
}

export const CS_EVENTS_TOPIC = 'clusters-service-events';
const MAX_BATCH = 100;

export class EventPublisher {
  private readonly client: ServiceBusClient;
  private readonly sender: ServiceBusSender;
  private readonly queue: CsStateEvent[] = [];
  private inFlight = 0;
  private sending?: Promise<void>;
  private published = 0;
  private failed = 0;
  private lastError?: string;
  private closed = false;
  private readonly maxQueued: number;

  constructor(options: EventPublisherOptions) {
    const timeoutInMs = options.sendTimeoutMs ?? 5000;
    this.client = new ServiceBusClient(options.connectionString, {
      retryOptions: { maxRetries: 2, timeoutInMs, retryDelayInMs: 100, maxRetryDelayInMs: 1000 },
    });
    this.sender = this.client.createSender(options.topic ?? CS_EVENTS_TOPIC);
    this.maxQueued = options.maxQueued ?? 10_000;
  }

  publish(event: CsStateEvent): void {
    if (this.closed) return;
    this.queue.push(event);
    if (this.queue.length > this.maxQueued) {
      this.queue.shift();
      this.failed++;
    }
    this.sending ??= this.drain().finally(() => (this.sending = undefined));
  }

  counts(): EventPublisherCounts {
    return {
      published: this.published,
      failed: this.failed,
      pending: this.queue.length + this.inFlight,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  /** Waits for what is queued to be sent (or given up), then closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    await this.sending;
    await this.client.close();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.inFlight = batch.length;
      try {
        await this.sender.sendMessages(batch.map(toMessage));
        this.published += batch.length;
      } catch (err) {
        this.failed += batch.length;
        this.lastError = err instanceof Error ? err.message : String(err);
      } finally {
        this.inFlight = 0;
      }
    }
  }
}

function toMessage(event: CsStateEvent): ServiceBusMessage {
  return {
    body: event,
    contentType: 'application/json',
    subject: event.kind,
    // The same change published twice (a retried send) is dropped by duplicate detection, when the topic has it
    // on; hashed because a message id holds at most 128 characters.
    messageId: createHash('sha256').update(`${event.href}@${event.state}@${event.time}`).digest('hex').slice(0, 32),
    applicationProperties: { kind: event.kind, state: event.state },
  };
}

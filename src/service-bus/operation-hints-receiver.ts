import { RetryMode, type ServiceBusClient, type ServiceBusReceiver } from '@azure/service-bus';
import type { Logger } from '../logging/logger';
import type { OperationHint } from '../domain/types.generated';
import { check, compileSchemas } from '../schemas/validator';
import { closeBounded } from './close-bounded';
import { LogThrottle, suppressedNote } from '../util/log-throttle';
import { accessFix, createServiceBusClient, lastAttemptError, type ServiceBusAccess } from './service-bus-access';

export interface OperationHintsReceiverOptions {
  access: ServiceBusAccess;
  /** A queue, or a topic when `subscription` is set. */
  entity: string;
  subscription?: string;
  onHint: (hint: OperationHint) => void;
  /** A message that is not a hint (logged at most every 30 s, dropped). */
  onInvalid?: () => void;
  onError?: (error: Error) => void;
  logger: Logger;
  now?: () => number;
}

export const OPERATION_HINTS_DEFAULTS = Object.freeze({
  entity: 'operation-hints',
  /** Idle poll ceiling with hints on: 0.2 change-feed requests/s per idle range, and what a lost hint costs at most. */
  maxPollDelayMs: 5_000,
});

/** Each kind of warning (Service Bus failing, invalid messages) is logged at most this often. */
const LOG_INTERVAL_MS = 30_000;
/**
 * The SDK's default waits 30 s between attempts, and closing a receiver waits for the attempt in
 * progress; short, growing waits keep reconnection prompt and closing quick (as for CS events).
 */
const RETRY = { mode: RetryMode.Exponential, maxRetries: 3, retryDelayInMs: 500, maxRetryDelayInMs: 5000, timeoutInMs: 10_000 };

/**
 * Receives wake-up hints (queue `operation-hints`, or a topic subscription) and hands each valid
 * one to `onHint`. A hint only says "read this range now": the change feed stays the source of
 * what is handled, so hints are received in receive-and-delete mode (no lock or settlement round
 * trip) and a lost one costs at most the idle poll interval. The SDK reconnects by itself; while
 * Service Bus is down errors are reported (`onError`) and the change feed keeps polling at its
 * ceiling: the Cosmos pipeline never waits on Service Bus.
 */
export class OperationHintsReceiver {
  private readonly client: ServiceBusClient;
  private readonly receiver: ServiceBusReceiver;
  private subscription?: { close(): Promise<void> };
  private readonly now: () => number;
  private readonly logs: { error: LogThrottle; invalid: LogThrottle };

  constructor(private readonly options: OperationHintsReceiverOptions) {
    this.now = options.now ?? Date.now;
    this.logs = { error: new LogThrottle(LOG_INTERVAL_MS, this.now), invalid: new LogThrottle(LOG_INTERVAL_MS, this.now) };
    this.client = createServiceBusClient(options.access, { retryOptions: RETRY });
    this.receiver = options.subscription
      ? this.client.createReceiver(options.entity, options.subscription, { receiveMode: 'receiveAndDelete' })
      : this.client.createReceiver(options.entity, { receiveMode: 'receiveAndDelete' });
  }

  /** `entity` or `topic/subscription`, as metrics and logs name it. */
  get entityPath(): string {
    return this.options.subscription ? `${this.options.entity}/${this.options.subscription}` : this.options.entity;
  }

  start(): void {
    // Here rather than on the first hint, which compiling made ~280 ms late.
    compileSchemas();
    this.subscription = this.receiver.subscribe(
      {
        processMessage: async (message) => this.take(message.body),
        processError: async ({ error }) => this.failed(error),
      },
      // A hint is handled synchronously in microseconds; a few in flight keep up with a busy frontend.
      { maxConcurrentCalls: 16 },
    );
  }

  async close(): Promise<void> {
    await closeBounded(this.client, async () => {
      await this.subscription?.close();
      await this.receiver.close();
    });
  }

  private take(body: unknown): void {
    const hint = check('operationHint', body);
    if (hint.ok) {
      this.options.onHint(hint.value);
      return;
    }
    this.options.onInvalid?.();
    const suppressed = this.logs.invalid.take();
    if (suppressed !== undefined)
      this.options.logger.warn(`a message on the hints entity is not an operation hint; dropped${suppressedNote(suppressed)}`, {
        entity: this.entityPath,
        error: hint.error.message,
        suppressed,
      });
  }

  private failed(failure: Error): void {
    const error = lastAttemptError(failure) as Error;
    this.options.onError?.(error);
    const suppressed = this.logs.error.take();
    if (suppressed !== undefined) {
      const fix = accessFix(this.options.access, error, 'Listen', this.entityPath);
      this.options.logger.warn(
        `operation hints not received (Service Bus); idle ranges are read at the poll ceiling${fix ? `: ${fix}` : ''}${suppressedNote(suppressed)}`,
        { entity: this.entityPath, error: error.message, suppressed },
      );
    }
  }
}

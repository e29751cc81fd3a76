import { RetryMode, type ServiceBusClient, type ServiceBusReceiver } from '@azure/service-bus';
import type { Logger } from '../logging/logger';
import type { CsEventHints, CsStateHint } from '../pipeline/cs-hints';
import { ReportedStates } from '../pipeline/reported-states';
import { check } from '../schemas/validator';
import { closeBounded } from './close-bounded';
import { LogThrottle, suppressedNote } from '../util/log-throttle';
import { accessFix, createServiceBusClient, lastAttemptError, type ServiceBusAccess } from './service-bus-access';

export interface CsEventsReceiverOptions {
  access: ServiceBusAccess;
  topic: string;
  subscription: string;
  /** While an event arrived within this long, `hints.flowing()` is true; also the follow's stretched delay. */
  followDelayMs: number;
  onEvent: (hint: CsStateHint) => void;
  /** A message that is not a CS event (logged and dropped). */
  onInvalid?: () => void;
  onError?: (error: Error) => void;
  logger: Logger;
  now?: () => number;
  /** Each kind of warning (Service Bus failing, invalid messages) is logged at most this often. @defaultValue 30 s */
  logIntervalMs?: number;
}

const LOG_INTERVAL_MS = 30_000;
/**
 * The SDK's default waits 30 s between attempts, and a receiver being closed waits for the attempt in
 * progress: closing during an outage took 28 s (measured), past the shutdown budget. Short, growing waits
 * keep reconnection prompt and closing quick.
 */
const RETRY = { mode: RetryMode.Exponential, maxRetries: 3, retryDelayInMs: 500, maxRetryDelayInMs: 5000, timeoutInMs: 10_000 };

/**
 * Receives Clusters Service state-change events (topic `clusters-service-events`, one subscription per
 * instance) and hands each valid one to `onEvent` as a hint; the newest state per object is also kept
 * for `hints.reported` (a Delete sends its DELETE without reading first when it says "not being deleted"). Events are hints, so they are received
 * in receive-and-delete mode (no lock or settlement round trip; a message lost with a crash costs the
 * follow's safety-net delay, nothing else). The SDK reconnects by itself; while Service Bus is down
 * errors are reported (`onError`) and nothing else waits on it: the Cosmos pipeline never does.
 */
export class CsEventsReceiver {
  private readonly client: ServiceBusClient;
  private readonly receiver: ServiceBusReceiver;
  private subscription?: { close(): Promise<void> };
  private lastEventAt = -Infinity;
  private readonly reported = new ReportedStates();
  private readonly now: () => number;
  private readonly logs: { error: LogThrottle; invalid: LogThrottle };
  /** What the status follow asks (processor tools). */
  readonly hints: CsEventHints;

  constructor(private readonly options: CsEventsReceiverOptions) {
    this.now = options.now ?? Date.now;
    const interval = options.logIntervalMs ?? LOG_INTERVAL_MS;
    this.logs = { error: new LogThrottle(interval, this.now), invalid: new LogThrottle(interval, this.now) };
    this.client = createServiceBusClient(options.access, { retryOptions: RETRY });
    this.receiver = this.client.createReceiver(options.topic, options.subscription, { receiveMode: 'receiveAndDelete' });
    const { followDelayMs } = options;
    this.hints = {
      followDelayMs,
      flowing: () => followDelayMs > 0 && this.now() - this.lastEventAt < followDelayMs,
      reported: (href) => this.reported.latest(href),
    };
  }

  start(): void {
    this.subscription = this.receiver.subscribe(
      {
        processMessage: async (message) => this.take(message.body),
        processError: async ({ error }) => this.failed(error),
      },
      // Many small messages: a few handlers at once keep up with a busy Clusters Service.
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
    const event = check('csEvent', body);
    if (!event.ok) {
      this.options.onInvalid?.();
      const suppressed = this.logs.invalid.take();
      if (suppressed !== undefined)
        this.options.logger.warn(`a message on the Clusters Service events topic is not a CS event; dropped${suppressedNote(suppressed)}`, {
          topic: this.options.topic,
          error: event.error.message,
          suppressed,
        });
      return;
    }
    this.lastEventAt = this.now();
    const time = Date.parse(event.value.time);
    const hint = { href: event.value.href, state: event.value.state, ...(Number.isFinite(time) ? { time } : {}) };
    this.reported.note(hint);
    this.options.onEvent(hint);
  }

  private failed(failure: Error): void {
    const error = lastAttemptError(failure) as Error;
    this.options.onError?.(error);
    const suppressed = this.logs.error.take();
    if (suppressed === undefined) return;
    const fix = accessFix(this.options.access, error, 'Listen', `${this.options.topic}/Subscriptions/${this.options.subscription}`);
    this.options.logger.warn(
      `Clusters Service events not received (Service Bus); status checks keep their own pace${fix ? `: ${fix}` : ''}${suppressedNote(suppressed)}`,
      { topic: this.options.topic, subscription: this.options.subscription, error: error.message, suppressed },
    );
  }
}

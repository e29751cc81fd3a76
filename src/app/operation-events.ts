import type { Container } from '@azure/cosmos';
import { createChangeFeedProcessor, type ChangeFeedProcessor, type ChangeFeedProcessorOptions } from '@opstream/changefeed';
import type { OpstreamConfig } from '../config/config-types';
import type { Logger } from '../logging/logger';
import type { OpstreamMetrics } from '../ops/metrics';
import { OPERATION_STATUSES } from '../domain/statuses';
import { OperationEventsPublisher, type OperationEventsPublisherOptions } from '../service-bus/operation-events-publisher';
import type { ServiceBusAccess } from '../service-bus/service-bus-access';
import { unusableServiceBusSettings } from '../auth/service-bus-auth';
import { sleep, type BackoffPolicy } from '../util/backoff';

/**
 * Operation events out, when a Service Bus namespace is configured (`access`; and `serviceBus.publishOperationEvents`
 * is not turned off): a change-feed processor of its own on `Operations`, under its own lease prefix,
 * publishes every version's transition and checkpoints only once Service Bus accepted it. It shares
 * nothing with the main pipeline but the Cosmos client: a Service Bus outage holds its ranges (retried
 * with backoff, never skipped) while the pipeline goes on.
 */
export interface OperationEventsDeps {
  /** The namespace (createServiceBusClient); Operation events are off without one. */
  access: ServiceBusAccess | undefined;
  operationsContainer: Container;
  leasesContainer: Container;
  /** The main processor's options; the lease prefix is replaced by the publisher's. */
  changefeed: ChangeFeedProcessorOptions;
  metrics: OpstreamMetrics;
  logger: Logger;
  /** Where a transition whose event Service Bus cannot take is set aside (reason `publication`). */
  deadLetters: OperationEventsPublisherOptions['deadLetters'];
  /** Told of each such dead letter (the pipeline's dead-letter events: metrics, taps, log line). */
  onDeadLettered?: OperationEventsPublisherOptions['onDeadLettered'];
}

export interface OperationEvents {
  readonly topic: string;
  readonly leasePrefix: string;
  readonly processor: ChangeFeedProcessor;
  /** Resolves once the publisher's leases exist (true), or when it stopped before that (false). */
  readonly ready: Promise<boolean>;
  /** What the live page shows. */
  stats(): {
    topic: string;
    published: number;
    failures: number;
    lastError: string | null;
    lagMs: { p50: number | null; p99: number | null };
  };
  stop(): Promise<void>;
}

/**
 * A batch Service Bus refuses is retried whole, for as long as it takes (never bisected into
 * "poison": the documents are fine, the topic is not). Every attempt ends within the SDK's timeout,
 * which keeps the reader's stall watchdog fed.
 */
const PUBLISH_RETRY: BackoffPolicy = Object.freeze({
  retries: Infinity,
  initialDelayMs: 250,
  maxDelayMs: 10_000,
  multiplier: 2,
  jitter: 0.2,
});
/** Start-up of the publisher's processor (lease container checks, lease creation) retries this often, in the background. */
const START_RETRY_MS = 5_000;

/** The lease prefix of the Operation events publisher's processor (a second processor of this fleet). */
export function operationEventsLeasePrefix(config: OpstreamConfig): string {
  return config.serviceBus.operationEventsLeasePrefix ?? `${config.changefeed.name}-operation-events`;
}

export function startOperationEvents(config: OpstreamConfig, deps: OperationEventsDeps): OperationEvents | undefined {
  const { publishOperationEvents, operationEventsTopic: topic } = config.serviceBus;
  const { access } = deps;
  if (!access || !publishOperationEvents) return undefined;
  const leasePrefix = operationEventsLeasePrefix(config);
  const { metrics, logger } = deps;
  const lags: number[] = [];
  let published = 0;
  let failures = 0;
  let lastError: string | null = null;
  let publisher: OperationEventsPublisher;
  try {
    publisher = new OperationEventsPublisher({
      access,
      topic,
      logger,
      deadLetters: deps.deadLetters,
      onDeadLettered: deps.onDeadLettered,
      onPublished: (event, lagMs) => {
        published++;
        lastError = null;
        metrics.serviceBusPublished.inc({ entity: topic, status: event.status });
        metrics.serviceBusPublishLag.observe({ entity: topic }, lagMs / 1000);
        lags.push(lagMs);
        if (lags.length > 1000) lags.shift();
      },
      onError: (error) => {
        failures++;
        lastError = error.message;
        metrics.serviceBusFailures.inc({ entity: topic, operation: 'send' });
      },
    });
  } catch (err) {
    throw unusableServiceBusSettings(access, err);
  }
  for (const status of OPERATION_STATUSES) metrics.serviceBusPublished.inc({ entity: topic, status }, 0);
  metrics.serviceBusFailures.inc({ entity: topic, operation: 'send' }, 0);

  const processor = createChangeFeedProcessor<unknown>(
    {
      feedContainer: deps.operationsContainer,
      leaseContainer: deps.leasesContainer,
      handler: (documents, context) => publisher.publish(documents, context.signal),
    },
    { ...deps.changefeed, processorName: leasePrefix, handlerRetry: PUBLISH_RETRY },
  );
  const stopping = new AbortController();
  // In the background: the main pipeline never waits for the publisher, at start or later.
  const started = (async () => {
    for (;;) {
      try {
        await processor.start();
        logger.info('publishing Operation events to Service Bus', { topic, leasePrefix });
        return true;
      } catch (err) {
        if (stopping.signal.aborted) return false;
        logger.warn('the publisher of Operation events could not start; retrying', {
          leasePrefix,
          error: (err as Error).message,
          retryInMs: START_RETRY_MS,
        });
        await sleep(START_RETRY_MS, stopping.signal).catch(() => undefined);
        if (stopping.signal.aborted) return false;
      }
    }
  })();

  return {
    topic,
    leasePrefix,
    processor,
    ready: started,
    stats: () => {
      const sorted = [...lags].sort((a, b) => a - b);
      const pct = (p: number): number | null =>
        sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number) : null;
      return { topic, published, failures, lastError, lagMs: { p50: pct(0.5), p99: pct(0.99) } };
    },
    stop: async () => {
      stopping.abort();
      await started;
      // A batch in flight is not checkpointed: the next owner sends it again, and duplicate detection drops it.
      await processor.stop();
      await publisher.close();
    },
  };
}

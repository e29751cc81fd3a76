import { hostname } from 'os';
import { randomBytes } from 'crypto';
import type { OpstreamConfig } from '../config/config-types';
import type { Logger } from '../logging/logger';
import type { OpstreamMetrics } from '../ops/metrics';
import type { OpsServerOptions } from '../ops/ops-server';
import { observePipeline } from '../ops/pipeline-observer';
import { STREAMS } from '../ops/stream-names';
import { TapRegistry } from '../ops/taps';
import { PipelineEvents } from '../pipeline/events';
import { compileSchemas } from '../schemas/validator';
import type { OperationPipeline } from '../pipeline/operation-pipeline';
import type { ProcessorFactory } from '../pipeline/reconcile/processor';
import { systemClock } from '../util/clock';
import { advertisedOps } from './advertised-ops';
import { startCsEvents } from './cs-events';
import { leaseStateCache } from './lease-state-cache';
import { LiveSummary } from './live-summary';
import type { OperationEvents } from './operation-events';
import { startOperationHints } from './operation-hints';
import { watchOtherFleets } from './other-fleets';
import { wireClustersService } from './wiring/clusters-service';
import { connectCosmosClients, openContainers } from './wiring/cosmos';
import { wireLogger } from './wiring/logging';
import { initialiseKnownCounters, wireMetrics } from './wiring/metrics';
import { startOpsServers } from './wiring/ops-servers';
import { wirePipeline } from './wiring/pipeline';
import { wireDeadLetters, wirePipelineServices } from './wiring/pipeline-services';
import { connectServiceBusLogged, wireOperationEvents } from './wiring/service-bus';
import { stopInOrder } from './wiring/stop-sequence';
import { instanceSummary } from './wiring/summary';
import { wireTracing } from './wiring/tracing';

/**
 * The composition root: builds every component from the validated configuration, wires the
 * processors it is given, starts the pipeline and the ops server. `stop()` undoes it in order:
 * unready at once, no new handling, handlings in flight finish or are abandoned after
 * `shutdown.drainTimeoutMs`, leases released, servers closed.
 */
export interface OpstreamDeps {
  /** Builds the processors (only the composition root's callers know `processors/`). */
  processors: ProcessorFactory;
  logger?: Logger;
  /** Start the ops server. @defaultValue true */
  opsServer?: boolean;
  /** Limits of SSE tap clients (tests shorten them). @defaultValue see SseClientOptions */
  opsSse?: OpsServerOptions['sse'];
}

export interface Opstream {
  instanceName: string;
  taps: TapRegistry;
  metrics: OpstreamMetrics;
  pipeline: OperationPipeline;
  /** The publisher of Operation events, when Service Bus is configured. */
  operationEvents?: OperationEvents;
  opsUrl?: string;
  /** The probes-and-metrics listener (`ops.metricsAddr`), when configured. */
  metricsUrl?: string;
  summary(): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function startOpstream(config: OpstreamConfig, deps: OpstreamDeps): Promise<Opstream> {
  const instanceName = config.changefeed.instanceName ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const logger = wireLogger(config, instanceName, deps.logger);
  const tracing = await wireTracing(config, { instanceName, logger });
  // Built further down, read by what is built before them (the active-operations gauge, hints, the summary).
  const late: { pipeline?: OperationPipeline; operationEvents?: OperationEvents } = {};
  const { metrics, permissions, onRequest } = wireMetrics(config, {
    logger,
    activeOperations: () => late.pipeline?.activeOperations() ?? [],
  });
  const client = await connectCosmosClients(config, { logger, onRequest });
  // Before any container is read: under Entra ID a first Service Bus token, so that a missing identity stops start-up here.
  const serviceBus = await connectServiceBusLogged(config, { logger, onFailure: () => client.dispose() });
  const containers = await openContainers(config, client, logger);
  const taps = new TapRegistry(STREAMS);
  const cs = wireClustersService(config, { logger, metrics });
  const events = new PipelineEvents();
  const deadLetters = wireDeadLetters(containers, { logger, metrics, events });
  const observing = observePipeline(events.events$, { metrics, taps, logger });
  const ctx = wirePipelineServices(config, { containers, cs, deadLetters, events, logger, instanceName });
  // Clusters Service events (when a Service Bus namespace is configured) wake the status follow of the pipeline built next.
  const csEvents = startCsEvents(config, { access: serviceBus, metrics, logger, checkNow: (hint) => pipeline.checkNow(hint) });
  const registry = deps.processors({ cs, clock: systemClock, follow: config.follow, csEvents: csEvents?.hints });
  initialiseKnownCounters(metrics, registry);
  // Where this instance's ops server answers, written into each lease it acquires: `opstream explain` asks the owner of a range there.
  const advertised = advertisedOps(instanceName, config.ops.advertiseUrl);
  const pipeline = (late.pipeline = wirePipeline(config, { ctx, registry, containers, instanceName, logger, advertised }));
  // Wake-up hints read the owning range at once, in the pipeline's processor and in the event publisher's (same poll ceiling).
  const hints = startOperationHints(config, {
    access: serviceBus,
    metrics,
    logger,
    wake: (pk) => {
      late.operationEvents?.processor.wakePartitionKey(pk);
      return pipeline.processor.wakePartitionKey(pk);
    },
  });
  const live = new LiveSummary(taps);
  const leaseState = leaseStateCache(pipeline.processor, metrics);
  const summary = instanceSummary({ instanceName, live, pipeline, leaseState, operationEvents: () => late.operationEvents });
  let stopping: Promise<void> | undefined;
  const running = { taps, metrics, logger, containers, pipeline, permissions, summary, leaseState, advertised };
  const opsDeps = { ...running, stopping: () => stopping !== undefined, sse: deps.opsSse };
  const servers = (deps.opsServer ?? true) ? await startOpsServers(config, opsDeps) : undefined;

  // Before the first document, hint or event, which compiling on first use would hold up (~280 ms).
  compileSchemas();
  pipeline.start();
  const otherFleets = watchOtherFleets(config, { processor: pipeline.processor, metrics, logger });
  csEvents?.start();
  const sb = { access: serviceBus, containers, instanceName, metrics, logger, deadLetters, events };
  const operationEvents = (late.operationEvents = wireOperationEvents(config, sb));
  hints?.start();
  logger.info('opstream started', { database: config.cosmos.database, processorName: config.changefeed.name });
  const parts = { logger, pipeline, operationEvents, otherFleets, deadLetters, observing, events, live, client, tracing };
  return {
    ...{ instanceName, taps, metrics, pipeline, operationEvents, summary },
    ...{ opsUrl: servers?.ops.url, metricsUrl: servers?.probes?.url },
    stop: () =>
      (stopping ??= stopInOrder({ ...parts, drainTimeoutMs: config.shutdown.drainTimeoutMs, closables: [servers, csEvents, hints] })),
  };
}

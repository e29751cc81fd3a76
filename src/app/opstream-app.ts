import { hostname } from 'os';
import { randomBytes } from 'crypto';
import type { OpstreamConfig } from '../config/config-types';
import { DeadLettersRepository, OperationsRepository, ResourcesRepository, SubscriptionsRepository } from '../cosmos';
import { SubscriptionLocks } from '../locks';
import { createLogger, type Logger } from '../logging/logger';
import { createMetrics, createPermissionDeniedCounter, initialiseCounters, type OpstreamMetrics } from '../ops/metrics';
import { livePage } from '../ops/live-page';
import { cachedFor } from '../ops/cached-for';
import { startOpsServer, type OpsServer, type OpsServerOptions, type ReadinessReport } from '../ops/ops-server';
import { defaultNotificationConcurrency } from '../pipeline/reconcile/notification-delivery';
import { announceDeadLetter } from '../pipeline/dead-letter';
import type { PipelineServices } from '../pipeline/context';
import { classifyFailure } from './handling-failures';
import type { ProcessorFactory } from '../pipeline/reconcile/processor';
import { NOTIFICATION_FAILURE_REASONS, NOTIFICATION_GIVE_UP_REASONS, PipelineEvents } from '../pipeline/events';
import { observePipeline } from '../ops/pipeline-observer';
import { OperationPipeline, type ActiveOperation } from '../pipeline/operation-pipeline';
import { KnownDocuments } from '../pipeline/known-documents';
import { OwnWrites } from '../pipeline/own-writes';
import { STREAMS } from '../ops/stream-names';
import { TapRegistry, guardUnhandledRxjsErrors } from '../ops/taps';
import type { ChangeFeedProcessorOptions } from '@opstream/changefeed';
import { systemClock } from '../util/clock';
import type { CosmosRequestObserver } from './cosmos-client';
import { containerIds } from './container-layout';
import { unknownVariables, unknownVariableWarning } from '../config/nearest-setting';
import { startCsEvents } from './cs-events';
import { startOperationEvents, type OperationEvents } from './operation-events';
import { hintsOn, startOperationHints } from './operation-hints';
import { leaseStateCache } from './lease-state-cache';
import { watchOtherFleets } from './other-fleets';
import { advertisedOps } from './advertised-ops';
import { LiveSummary } from './live-summary';
import { checkReadiness } from './readiness';
import { NO_CONTAINER, PermissionWatch } from './permission-watch';
import { wireTracing } from './wiring/tracing';
import { connectCosmosClients, openContainers } from './wiring/cosmos';
import { connectServiceBusLogged } from './wiring/service-bus';
import { wireClustersService } from './wiring/clusters-service';
import { wireArmNotifier } from './wiring/arm';
import { COSMOS_REQUEST_KINDS } from './cosmos-request-kind';
import { GIVE_UP_CAUSES } from '../cosmos/bounded-retry';
import { OPERATION_STATUSES } from '../domain/statuses';
import { DEAD_LETTER_REASONS } from '../pipeline/dead-letter';
import { commit, version } from '../util/version';

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

/** How long one readiness answer serves /readyz. */
const READINESS_CACHE_MS = 1000;

const STOPPING: ReadinessReport = {
  ready: false,
  checks: { shutdown: { ok: false, detail: 'stopping: finishing handlings in flight, then releasing leases' } },
};

export async function startOpstream(config: OpstreamConfig, deps: OpstreamDeps): Promise<Opstream> {
  const instanceName = config.changefeed.instanceName ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const logger = (deps.logger ?? createLogger({ level: config.log.level, format: config.log.format })).child({ instanceName });
  guardUnhandledRxjsErrors((err) => logger.error('a stream subscriber threw', { error: (err as Error)?.message ?? String(err) }));
  // Ignored, so a typo would leave the default in force unnoticed: say so, with the setting it likely meant.
  for (const unknown of unknownVariables(process.env))
    logger.warn(unknownVariableWarning(unknown), { variable: unknown.name, nearest: unknown.nearest?.env });
  const tracing = await wireTracing(config, { instanceName, logger });
  // The gauge of active operations reads the pipeline's queue, which exists from further down.
  let activeOperations = (): ActiveOperation[] => [];
  const metrics = createMetrics({ build: { version, commit }, activeOperations: () => activeOperations() });
  // Every answer is watched for a missing data role (a role removed while running): counted, logged once, unready.
  const permissionDenied = createPermissionDeniedCounter(metrics.registry, [...new Set(Object.values(containerIds(config))), NO_CONTAINER]);
  const permissions = new PermissionWatch({ clock: systemClock, logger, count: (container) => permissionDenied.inc({ container }) });
  const onRequest: CosmosRequestObserver = (kind, status, ru, request) => {
    metrics.cosmosRequests.inc({ kind, status: String(status) });
    if (ru > 0) metrics.cosmosRequestUnits.inc({ kind }, ru);
    permissions.observe(status, request);
  };
  const client = await connectCosmosClients(config, { logger, onRequest });
  // Before any container is read: under Entra ID a first Service Bus token, so that a missing identity stops start-up here.
  const serviceBus = await connectServiceBusLogged(config, { logger, onFailure: () => client.dispose() });
  const containers = await openContainers(config, client, logger);
  const taps = new TapRegistry(STREAMS);
  const cs = wireClustersService(config, { logger, metrics });
  const ownWrites = new OwnWrites();
  // As many as the queue holds operations: no handling needs more.
  const known = new KnownDocuments(config.pipeline.maxScheduled);
  const events = new PipelineEvents();
  const deadLetters = new DeadLettersRepository(containers.deadLetters, {
    logger,
    failures: metrics.deadLetterWriteFailures,
    onLateWrite: (input, result) => announceDeadLetter(events, input, result),
  });
  const observing = observePipeline(events.events$, { metrics, taps, logger });
  // A configured name may outlive a process (a restarted pod): the claim token tells the two apart.
  const instanceId = `${instanceName}#${randomBytes(4).toString('hex')}`;
  const ctx: PipelineServices = {
    operations: new OperationsRepository(containers.operations, {
      clock: systemClock,
      onWrite: (doc) => ownWrites.record(doc),
      onVersion: (id, doc) => known.sawOperation(id, doc),
    }),
    resources: new ResourcesRepository(containers.resources, { onVersion: (id, doc) => known.sawResource(id, doc) }),
    subscriptions: new SubscriptionsRepository(containers.subscriptions),
    deadLetters,
    locks: new SubscriptionLocks(containers.locks, {
      owner: instanceName,
      // The lock is a document with a Cosmos TTL, which counts whole seconds (locks.ttlMs is a multiple of 1000).
      ttlSeconds: config.locks.ttlMs / 1000,
      acquireRetryBaseMs: config.locks.acquireRetryBaseMs,
      acquireRetryMaxMs: config.locks.acquireRetryMaxMs,
      logger,
    }),
    cs,
    notifier: wireArmNotifier(config, { logger, instanceId }),
    events,
    ownWrites,
    known,
    logger,
    clock: systemClock,
    instanceId,
    settings: {
      createDeadlineMs: config.pipeline.createDeadlineMs,
      deleteDeadlineMs: config.pipeline.deleteDeadlineMs,
      waitDelayMs: Math.min(1000, config.follow.maxDelayMs),
      createSettleMs: config.pipeline.inflightCreateGraceMs ?? 2 * config.clustersService.timeoutMs,
      notificationClaimMs: config.pipeline.notificationClaimMs,
      notificationDeadlineMs: config.notifications.deadlineMs,
      notificationRetryMaxDelayMs: config.notifications.retryMaxDelayMs,
      notificationConcurrency: config.notifications.concurrency ?? defaultNotificationConcurrency(config.pipeline.concurrency),
    },
  };
  // Clusters Service events (when a Service Bus namespace is configured) wake the status follow of the pipeline built next.
  // (called only once the receiver starts, after the pipeline exists)
  const csEvents = startCsEvents(config, { access: serviceBus, metrics, logger, checkNow: (hint) => pipeline.checkNow(hint) });
  const registry = deps.processors({ cs, clock: systemClock, follow: config.follow, csEvents: csEvents?.hints });
  initialiseCounters(metrics, {
    processors: registry.map((p) => p.name),
    statuses: OPERATION_STATUSES,
    deadLetterReasons: DEAD_LETTER_REASONS,
    deadLetterCauses: GIVE_UP_CAUSES,
    cosmosKinds: COSMOS_REQUEST_KINDS,
    streams: STREAMS,
    notificationFailures: NOTIFICATION_FAILURE_REASONS,
    notificationGiveUps: NOTIFICATION_GIVE_UP_REASONS,
  });
  // Where this instance's ops server answers, written into each lease it acquires: `opstream explain` asks the owner of a range there.
  const advertised = advertisedOps(instanceName, config.ops.advertiseUrl);
  const pipeline = new OperationPipeline(
    {
      ctx,
      registry,
      classify: classifyFailure,
      operationsContainer: containers.operations,
      leasesContainer: containers.leases,
      changefeed: { ...changefeedOptions(config, instanceName, logger), leaseProperties: advertised.leaseProperties },
    },
    {
      concurrency: config.pipeline.concurrency,
      relistIntervalMs: config.pipeline.relistIntervalMs,
      maxHandlerAttempts: config.pipeline.maxHandlerAttempts,
      startedFirst: config.pipeline.startedFirst,
      maxScheduled: config.pipeline.maxScheduled,
    },
  );
  activeOperations = () => pipeline.activeOperations();
  // Wake-up hints (serviceBus.hints) read the owning range at once; the pipeline's processor owns the ranges.
  // The Operation events publisher polls at the same ceiling, so a hint wakes its reader of that range too.
  const hints = startOperationHints(config, {
    access: serviceBus,
    metrics,
    logger,
    wake: (pk) => {
      operationEvents?.processor.wakePartitionKey(pk);
      return pipeline.processor.wakePartitionKey(pk);
    },
  });
  // Started after the pipeline; the summary (served from before) reads it once it exists.
  const publisher: { events?: OperationEvents } = {};
  const live = new LiveSummary(taps);
  const leaseState = leaseStateCache(pipeline.processor, metrics);
  const summary = async (): Promise<Record<string, unknown>> => {
    const state = await leaseState();
    return {
      instance: instanceName,
      ...live.snapshot(),
      scheduled: pipeline.scheduled().length,
      // Per operation here, not in /metrics (whose series stay bounded: oldest age per kind, counts per age).
      activeOperations: activeOperationsDetail(pipeline.activeOperations(), Date.now()),
      ...(publisher.events ? { operationEvents: publisher.events.stats() } : {}),
      leases: state.leases.map((l) => ({ leaseToken: l.leaseToken, owner: l.owner, lag: l.lag ?? null, continuation: l.continuation })),
    };
  };
  let ops: OpsServer | undefined;
  let probes: OpsServer | undefined;
  let stopping: Promise<void> | undefined;
  if (deps.opsServer ?? true) {
    // /readyz answers anyone who asks: one Cosmos read a second at most, however often that is.
    const checked = cachedFor(READINESS_CACHE_MS, () =>
      checkReadiness({
        database: containers.database,
        processor: pipeline.processor,
        stallMs: 60_000,
        permissions: () => permissions.readiness(),
      }),
    );
    // Unready from the first instant of a stop: the pod leaves its Service before anything else happens.
    const readiness = (): Promise<ReadinessReport> => (stopping ? Promise.resolve(STOPPING) : checked());
    const shared = { taps, metrics, readiness, beforeMetrics: async () => void (await leaseState()), logger };
    const [host, port] = splitAddr(config.ops.addr);
    ops = await startOpsServer({
      ...shared,
      host,
      port,
      token: config.ops.token,
      summary,
      operation: (id) => pipeline.describe(id),
      nudge: (id) => pipeline.nudge(id),
      page: livePage,
      sse: deps.opsSse,
      maxStreamClients: config.ops.maxStreamClients,
    });
    logger.info(`ops server on ${ops.url}`, { opsUrl: ops.url, advertisedUrl: advertised.listening(ops.url) });
    if (config.ops.metricsAddr) {
      const [metricsHost, metricsPort] = splitAddr(config.ops.metricsAddr);
      probes = await startOpsServer({ ...shared, host: metricsHost, port: metricsPort, only: 'probes' });
      logger.info(`probes and metrics on ${probes.url}`, { metricsUrl: probes.url });
    }
  }

  pipeline.start();
  const otherFleets = watchOtherFleets(config, { processor: pipeline.processor, metrics, logger });
  csEvents?.start();
  // Its own change-feed processor and leases: it starts, fails and catches up apart from the pipeline.
  const operationEvents = startOperationEvents(config, {
    access: serviceBus,
    operationsContainer: containers.operations,
    leasesContainer: containers.leases,
    changefeed: changefeedOptions(config, instanceName, logger),
    metrics,
    logger,
    deadLetters,
    onDeadLettered: (input, result) => {
      if (result.outcome === 'written') announceDeadLetter(events, input, result);
    },
  });
  publisher.events = operationEvents;
  hints?.start();
  logger.info('opstream started', { database: config.cosmos.database, processorName: config.changefeed.name });

  return {
    instanceName,
    taps,
    metrics,
    pipeline,
    operationEvents,
    opsUrl: ops?.url,
    metricsUrl: probes?.url,
    summary,
    stop: () =>
      (stopping ??= (async () => {
        const started = Date.now();
        logger.info('opstream stopping: unready, no new handling', { drainTimeoutMs: config.shutdown.drainTimeoutMs });
        const [{ abandoned }] = await Promise.all([pipeline.stop({ drainMs: config.shutdown.drainTimeoutMs }), operationEvents?.stop()]);
        logger.info('leases released', { abandoned, elapsedMs: Date.now() - started });
        otherFleets.stop();
        deadLetters.stopLateWrites();
        observing.unsubscribe();
        events.close();
        live.close();
        await Promise.all([ops?.close(), probes?.close(), csEvents?.close(), hints?.close()]);
        client.dispose();
        await tracing?.stop();
        logger.info('opstream stopped', { elapsedMs: Date.now() - started });
      })()),
  };
}

export function changefeedOptions(config: OpstreamConfig, instanceName: string, logger: Logger): ChangeFeedProcessorOptions {
  const { name, startFrom, instanceName: _configured, ...rest } = config.changefeed;
  return {
    ...rest,
    // With hints, a write is announced: idle ranges may be polled rarely (a lost hint costs one such
    // pause), and a range that just changed needs no fast polls either: the next write brings its own hint.
    ...(hintsOn(config) ? { maxPollDelayMs: config.serviceBus.hintsMaxPollDelayMs, activeWindowMs: 0 } : {}),
    processorName: name,
    instanceName,
    logger,
    ...(startFrom === undefined
      ? {}
      : { startFrom: startFrom === 'beginning' || startFrom === 'now' ? startFrom : { time: new Date(startFrom) } }),
  };
}

/** Operations listed one by one in /api/summary, oldest first; the rest are counted. */
const ACTIVE_OPERATIONS_LISTED = 100;

export function activeOperationsDetail(
  active: readonly ActiveOperation[],
  now: number,
): { count: number; oldest: Array<Record<string, string | number>> } {
  const oldest = [...active]
    .sort((a, b) => a.startTimeMs - b.startTimeMs)
    .slice(0, ACTIVE_OPERATIONS_LISTED)
    .map((o) => ({
      operationId: o.operationId,
      resourceType: o.resourceType,
      request: o.request,
      status: o.status,
      startTime: Number.isFinite(o.startTimeMs) ? new Date(o.startTimeMs).toISOString() : 'unknown',
      ageSeconds: Number.isFinite(o.startTimeMs) ? Math.max(0, Math.round((now - o.startTimeMs) / 1000)) : 0,
    }));
  return { count: active.length, oldest };
}

function splitAddr(addr: string): [string, number] {
  const i = addr.lastIndexOf(':');
  return [addr.slice(0, i).replace(/^\[|\]$/g, ''), Number(addr.slice(i + 1))];
}

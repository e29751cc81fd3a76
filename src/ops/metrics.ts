import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ActiveOperation } from '../pipeline/operation-pipeline';

/**
 * Every Prometheus metric opstream exports, in one place, with its own registry (no global state,
 * so two instances in one test process do not collide).
 *
 * Conventions (the alerts in `deploy/kubernetes/base/prometheusrule.yaml` and the dashboard rely on them):
 * - process and Node.js runtime metrics keep their standard names (`process_*`, `nodejs_*`);
 * - units are in the names (`_seconds`, `_changes`, `_total`);
 * - one meaning per label name: `request` is the ARM request (Create, Update, …), `processor` the
 *   processor's name (cluster-create, …), `status` an Operation status except on
 *   `opstream_cs_calls_total`, where it is the HTTP status (or timeout, connection-error);
 * - counters whose label values are known up front start at zero (`initialiseCounters`), so an
 *   `increase()` sees the first event.
 */
export interface OpstreamMetrics {
  registry: Registry;
  buildInfo: Gauge<'version' | 'commit'>;
  reactionLatency: Histogram<'request'>;
  completionLag: Histogram<'request'>;
  operations: Counter<'processor' | 'outcome'>;
  transitions: Counter<'status'>;
  leaseLag: Gauge<'lease'>;
  leasesOwned: Gauge;
  leasesUnowned: Gauge;
  otherFleetLeases: Gauge;
  csCalls: Counter<'endpoint' | 'status'>;
  csCallDuration: Histogram<'endpoint'>;
  lockWaitSeconds: Histogram;
  lockLosses: Counter;
  deadLetters: Counter<'reason'>;
  deadLetterWriteFailures: Counter<'reason' | 'cause'>;
  cosmosRequests: Counter<'kind' | 'status'>;
  cosmosRequestUnits: Counter<'kind'>;
  notifications: Counter<'outcome' | 'reason'>;
  tapDrops: Counter<'stream'>;
  /** Open `/streams/*` clients (taps, live pages), at most `ops.maxStreamClients`. */
  tapClients: Gauge;
  /** Ops-server requests refused: `stream-limit` (past ops.maxStreamClients), `host` (a Host not of this server, without a token). */
  opsRefused: Counter<'reason'>;
  queueSettlements: Counter<'result'>;
  scheduled: Gauge;
  /** Resources in line for a worker, by line (started, new). */
  queueWaiting: Gauge<'line'>;
  /** Age of the oldest non-terminal operation held, by kind (resource type, request) and status. */
  oldestActiveOperation: Gauge<'resource_type' | 'request' | 'status'>;
  /** Non-terminal operations held for at most `le` seconds (cumulative, `+Inf` = all), by request. */
  activeOperations: Gauge<'request' | 'le'>;
  followFirstCheckDelay: Gauge<'kind'>;
  serviceBusReceived: Counter<'entity' | 'outcome'>;
  serviceBusFailures: Counter<'entity' | 'operation'>;
  serviceBusPublished: Counter<'entity' | 'status'>;
  serviceBusPublishLag: Histogram<'entity'>;
}

/**
 * Upper bounds (seconds) of the age buckets of `opstream_active_operations`: a minute to the 12 h
 * delete deadline. Bounded series whatever the number of operations (one per operation would churn
 * and grow without bound); each operation's own age is in the ops API (/api/summary).
 */
export const ACTIVE_AGE_BUCKETS = [60, 300, 900, 1800, 3600, 3 * 3600, 12 * 3600] as const;

export interface MetricsOptions {
  /** Process and Node.js runtime metrics. @defaultValue true */
  defaultMetrics?: boolean;
  /** `opstream_build_info` labels. @defaultValue version and commit "unknown" */
  build?: { version: string; commit: string };
  /** Read at each scrape for `opstream_active_operation_oldest_age_seconds` and `opstream_active_operations`. @defaultValue none */
  activeOperations?: () => readonly ActiveOperation[];
  /** Now, in ms (tests). @defaultValue Date.now */
  now?: () => number;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(options: MetricsOptions = {}): OpstreamMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const r = [registry];
  const build = options.build ?? { version: 'unknown', commit: 'unknown' };
  const buildInfo = new Gauge({
    name: 'opstream_build_info',
    help: 'Always 1; the labels say which build runs',
    labelNames: ['version', 'commit'],
    registers: r,
  });
  buildInfo.set(build, 1);
  const listActive = options.activeOperations;
  const now = options.now ?? Date.now;
  // The held operations with their ages, read afresh by each of the two gauges below at every scrape.
  const active = (): Array<{ o: ActiveOperation; age: number }> => {
    const at = now();
    return (listActive?.() ?? []).map((o) => ({ o, age: Number.isFinite(o.startTimeMs) ? Math.max(0, (at - o.startTimeMs) / 1000) : 0 }));
  };
  return {
    registry,
    buildInfo,
    reactionLatency: new Histogram({
      name: 'opstream_reaction_latency_seconds',
      help: 'Frontend write (operation startTime) to the first handling of the operation, by ARM request',
      labelNames: ['request'],
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    completionLag: new Histogram({
      name: 'opstream_completion_lag_seconds',
      help: 'Clusters Service reached a final state to the Operation written terminal, by ARM request',
      labelNames: ['request'],
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    operations: new Counter({
      name: 'opstream_operations_handled_total',
      help: 'Operation handlings by processor name and outcome (done, again, failed)',
      labelNames: ['processor', 'outcome'],
      registers: r,
    }),
    transitions: new Counter({
      name: 'opstream_operation_transitions_total',
      help: 'Operation status changes written, by new status',
      labelNames: ['status'],
      registers: r,
    }),
    leaseLag: new Gauge({
      name: 'opstream_changefeed_lease_lag_changes',
      help: 'Estimated change-feed lag per owned lease: changes (transactions) after its checkpoint',
      labelNames: ['lease'],
      registers: r,
    }),
    leasesOwned: new Gauge({ name: 'opstream_changefeed_leases_owned', help: 'Leases this instance owns', registers: r }),
    leasesUnowned: new Gauge({
      name: 'opstream_changefeed_leases_unowned',
      help: 'Leases no live instance holds (no owner, or an owner that stopped renewing), as this instance last listed them',
      registers: r,
    }),
    otherFleetLeases: new Gauge({
      name: 'opstream_other_fleet_leases',
      help: 'Live leases that another processor (another changefeed.name, a second fleet) holds on the same Operations container, by its lease prefix, as the last widened lease listing found them',
      labelNames: ['processor'],
      registers: r,
    }),
    csCalls: new Counter({
      name: 'opstream_cs_calls_total',
      help: 'Clusters Service calls (every attempt) by endpoint and HTTP status, or timeout / connection-error',
      labelNames: ['endpoint', 'status'],
      registers: r,
    }),
    csCallDuration: new Histogram({
      name: 'opstream_cs_call_duration_seconds',
      help: 'Clusters Service call duration (every attempt)',
      labelNames: ['endpoint'],
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    lockWaitSeconds: new Histogram({
      name: 'opstream_lock_wait_seconds',
      help: 'Time to acquire a subscription lock',
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    lockLosses: new Counter({ name: 'opstream_lock_losses_total', help: 'Subscription locks lost while held', registers: r }),
    deadLetters: new Counter({
      name: 'opstream_dead_letters_total',
      help: 'Documents dead-lettered, by reason',
      labelNames: ['reason'],
      registers: r,
    }),
    deadLetterWriteFailures: new Counter({
      name: 'opstream_dead_letter_write_failures_total',
      help: 'Dead letters given up (the document was skipped without one), by dead-letter reason and cause: rejected (Cosmos refused it), timeout (retriable failures past the deadline), circuit-open (not attempted after a timeout)',
      labelNames: ['reason', 'cause'],
      registers: r,
    }),
    cosmosRequests: new Counter({
      name: 'opstream_cosmos_requests_total',
      help: 'Cosmos DB requests by kind and status',
      labelNames: ['kind', 'status'],
      registers: r,
    }),
    cosmosRequestUnits: new Counter({
      name: 'opstream_cosmos_request_units_total',
      help: 'Request units Cosmos DB charged (x-ms-request-charge of every answer, retries included), by kind of request',
      labelNames: ['kind'],
      registers: r,
    }),
    notifications: new Counter({
      name: 'opstream_arm_notifications_total',
      help: 'ARM async notifications by outcome: delivered; failed (an attempt, retried unless final), reason connection, timeout, throttled, server-error, redirect or rejected; given-up (cleared unsent), reason uri, scheme, host, address (the notificationUri was refused, nothing sent), redirect, rejected or deadline',
      labelNames: ['outcome', 'reason'],
      registers: r,
    }),
    tapDrops: new Counter({
      name: 'opstream_tap_events_dropped_total',
      help: 'Tap events dropped for slow stream clients',
      labelNames: ['stream'],
      registers: r,
    }),
    tapClients: new Gauge({
      name: 'opstream_tap_clients',
      help: 'Stream clients (/streams/*: taps, live pages) connected now',
      registers: r,
    }),
    opsRefused: new Counter({
      name: 'opstream_ops_requests_refused_total',
      help: 'Ops server requests refused, by reason: stream-limit (ops.maxStreamClients streams already open, 503), host (a Host header not of this server on a listener without a token, 421)',
      labelNames: ['reason'],
      registers: r,
    }),
    queueSettlements: new Counter({
      name: 'opstream_queue_settlements_total',
      help: 'Handlings ended, by result: done, requeued (parked to look again), retried (threw, retried with backoff), failed (dead-lettered), abandoned (at stop)',
      labelNames: ['result'],
      registers: r,
    }),
    scheduled: new Gauge({
      name: 'opstream_scheduled_operations',
      help: 'Operations waiting, parked or in flight in this instance',
      registers: r,
    }),
    queueWaiting: new Gauge({
      name: 'opstream_queue_waiting_resources',
      help: 'Resources in line for a worker, by line: started (an operation already started), new (new operations only; they wait while started work takes the workers, see pipeline.startedFirst)',
      labelNames: ['line'],
      registers: r,
    }),
    serviceBusReceived: new Counter({
      name: 'opstream_service_bus_received_total',
      help: 'Service Bus messages received, by entity (topic/subscription, or the hints queue) and outcome: woke (brought status checks forward; for a hint, woke the feed range it names), ignored (nothing here follows that object, or its state cannot end an operation; for a hint, its range is not owned here), invalid',
      labelNames: ['entity', 'outcome'],
      registers: r,
    }),
    serviceBusFailures: new Counter({
      name: 'opstream_service_bus_failures_total',
      help: 'Service Bus errors (the SDK retries and reconnects by itself), by entity and operation',
      labelNames: ['entity', 'operation'],
      registers: r,
    }),
    serviceBusPublished: new Counter({
      name: 'opstream_service_bus_published_total',
      help: 'Operation transitions Service Bus accepted, by entity (topic) and Operation status (a repeat dropped by duplicate detection counts again)',
      labelNames: ['entity', 'status'],
      registers: r,
    }),
    serviceBusPublishLag: new Histogram({
      name: 'opstream_service_bus_publish_lag_seconds',
      help: 'Operation transition written (lastTransitionTime) to Service Bus accepting its event, by entity (topic)',
      labelNames: ['entity'],
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    oldestActiveOperation: new Gauge({
      name: 'opstream_active_operation_oldest_age_seconds',
      help: 'Age (seconds since its startTime) of the oldest non-terminal operation this instance holds, by resource type, ARM request and status; each operation is listed in the ops API (/api/summary activeOperations)',
      labelNames: ['resource_type', 'request', 'status'],
      registers: r,
      // Read from the scheduler at each scrape: a kind with nothing held has no series.
      collect() {
        if (!listActive) return;
        this.reset();
        const oldest = new Map<string, { labels: { resource_type: string; request: string; status: string }; age: number }>();
        for (const { o, age } of active()) {
          const labels = { resource_type: o.resourceType, request: o.request, status: o.status };
          const key = JSON.stringify(labels);
          const seen = oldest.get(key);
          if (!seen || age > seen.age) oldest.set(key, { labels, age });
        }
        for (const { labels, age } of oldest.values()) this.set(labels, age);
      },
    }),
    activeOperations: new Gauge({
      name: 'opstream_active_operations',
      help: `Non-terminal operations this instance holds for at most le seconds since their startTime (cumulative: le="+Inf" counts them all), by ARM request; buckets ${ACTIVE_AGE_BUCKETS.join(', ')} s`,
      labelNames: ['request', 'le'],
      registers: r,
      collect() {
        if (!listActive) return;
        this.reset();
        const counts = new Map<string, number[]>();
        for (const { o, age } of active()) {
          const row = counts.get(o.request) ?? new Array<number>(ACTIVE_AGE_BUCKETS.length + 1).fill(0);
          counts.set(o.request, row);
          ACTIVE_AGE_BUCKETS.forEach((le, i) => {
            if (age <= le) row[i]++;
          });
          row[ACTIVE_AGE_BUCKETS.length]++;
        }
        for (const [request, row] of counts) {
          ACTIVE_AGE_BUCKETS.forEach((le, i) => this.set({ request, le: String(le) }, row[i] as number));
          this.set({ request, le: '+Inf' }, row[ACTIVE_AGE_BUCKETS.length] as number);
        }
      },
    }),
    followFirstCheckDelay: new Gauge({
      name: 'opstream_follow_first_check_delay_seconds',
      help: 'Learned wait between a dispatch and the first Clusters Service status check, by kind of operation',
      labelNames: ['kind'],
      registers: r,
    }),
  };
}

/** The label values known up front; every combination starts at zero. */
export interface KnownLabelValues {
  processors: readonly string[];
  statuses: readonly string[];
  deadLetterReasons: readonly string[];
  deadLetterCauses: readonly string[];
  cosmosKinds: readonly string[];
  streams: readonly string[];
  notificationFailures: readonly string[];
  notificationGiveUps: readonly string[];
}

/** Starts every counter at zero for its known label values (an `increase()` then sees the first event). */
export function initialiseCounters(m: OpstreamMetrics, known: KnownLabelValues): void {
  for (const processor of known.processors) for (const outcome of ['done', 'again', 'failed']) m.operations.inc({ processor, outcome }, 0);
  for (const status of known.statuses) m.transitions.inc({ status }, 0);
  for (const reason of known.deadLetterReasons) {
    m.deadLetters.inc({ reason }, 0);
    for (const cause of known.deadLetterCauses) m.deadLetterWriteFailures.inc({ reason, cause }, 0);
  }
  for (const kind of known.cosmosKinds) m.cosmosRequestUnits.inc({ kind }, 0);
  m.notifications.inc({ outcome: 'delivered' }, 0);
  for (const reason of known.notificationFailures) m.notifications.inc({ outcome: 'failed', reason }, 0);
  for (const reason of known.notificationGiveUps) m.notifications.inc({ outcome: 'given-up', reason }, 0);
  for (const stream of known.streams) m.tapDrops.inc({ stream }, 0);
  for (const reason of ['stream-limit', 'host']) m.opsRefused.inc({ reason }, 0);
}

/**
 * `opstream_permission_denied_total{container}`: Cosmos DB requests refused for want of a data-plane
 * role (403 substatus 5301/5302), by container (`(account)` above any container); starts at zero
 * for `containers`. Any increase means the identity lost (or never had) the role it needs.
 */
export function createPermissionDeniedCounter(registry: Registry, containers: readonly string[]): Counter<'container'> {
  const counter = new Counter({
    name: 'opstream_permission_denied_total',
    help: 'Cosmos DB requests refused for want of a data-plane role (HTTP 403, substatus 5301/5302), by container: the identity lacks the role it needs',
    labelNames: ['container'],
    registers: [registry],
  });
  for (const container of containers) counter.inc({ container }, 0);
  return counter;
}

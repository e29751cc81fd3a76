import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every Prometheus metric opstream exports, in one place, with its own registry (no global state,
 * so two instances in one test process do not collide).
 */
export interface OpstreamMetrics {
  registry: Registry;
  reactionLatency: Histogram<'processor'>;
  completionLag: Histogram<'processor'>;
  operations: Counter<'processor' | 'outcome'>;
  transitions: Counter<'status'>;
  leaseLag: Gauge<'lease'>;
  leasesOwned: Gauge;
  csCalls: Counter<'endpoint' | 'status'>;
  csCallDuration: Histogram<'endpoint'>;
  lockWaitSeconds: Histogram;
  lockLosses: Counter;
  deadLetters: Counter<'reason'>;
  deadLetterWriteFailures: Counter<'reason' | 'cause'>;
  cosmosRequests: Counter<'kind' | 'status'>;
  cosmosRequestUnits: Counter<'kind'>;
  notifications: Counter<'outcome'>;
  tapDrops: Counter<'stream'>;
  queueSettlements: Counter<'result'>;
  scheduled: Gauge;
  followFirstCheckDelay: Gauge<'kind'>;
  serviceBusReceived: Counter<'entity' | 'outcome'>;
  serviceBusFailures: Counter<'entity' | 'operation'>;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(options: { defaultMetrics?: boolean } = {}): OpstreamMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'opstream_' });
  const r = [registry];
  return {
    registry,
    reactionLatency: new Histogram({
      name: 'opstream_reaction_latency_seconds',
      help: 'Frontend write (operation _ts/startTime) to the first handling of the operation by a processor',
      labelNames: ['processor'],
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    completionLag: new Histogram({
      name: 'opstream_completion_lag_seconds',
      help: 'Clusters Service reached a final state to the Operation written terminal',
      labelNames: ['processor'],
      buckets: LATENCY_BUCKETS,
      registers: r,
    }),
    operations: new Counter({ name: 'opstream_operations_handled_total', help: 'Operation handlings by processor and outcome', labelNames: ['processor', 'outcome'], registers: r }),
    transitions: new Counter({ name: 'opstream_operation_transitions_total', help: 'Operation status changes written, by new status', labelNames: ['status'], registers: r }),
    leaseLag: new Gauge({ name: 'opstream_changefeed_lease_lag', help: 'Estimated change-feed lag (transactions) per owned lease', labelNames: ['lease'], registers: r }),
    leasesOwned: new Gauge({ name: 'opstream_changefeed_leases_owned', help: 'Leases this instance owns', registers: r }),
    csCalls: new Counter({ name: 'opstream_cs_calls_total', help: 'Clusters Service calls by endpoint and HTTP status', labelNames: ['endpoint', 'status'], registers: r }),
    csCallDuration: new Histogram({ name: 'opstream_cs_call_duration_seconds', help: 'Clusters Service call duration', labelNames: ['endpoint'], buckets: LATENCY_BUCKETS, registers: r }),
    lockWaitSeconds: new Histogram({ name: 'opstream_lock_wait_seconds', help: 'Time to acquire a subscription lock', buckets: LATENCY_BUCKETS, registers: r }),
    lockLosses: new Counter({ name: 'opstream_lock_losses_total', help: 'Subscription locks lost while held', registers: r }),
    deadLetters: new Counter({ name: 'opstream_dead_letters_total', help: 'Documents dead-lettered, by reason', labelNames: ['reason'], registers: r }),
    deadLetterWriteFailures: new Counter({
      name: 'opstream_dead_letter_write_failures_total',
      help: 'Dead letters given up (the document was skipped without one), by dead-letter reason and cause: rejected (Cosmos refused it), timeout (retriable failures past the deadline), circuit-open (not attempted after a timeout)',
      labelNames: ['reason', 'cause'],
      registers: r,
    }),
    cosmosRequests: new Counter({ name: 'opstream_cosmos_requests_total', help: 'Cosmos DB requests by kind and status', labelNames: ['kind', 'status'], registers: r }),
    cosmosRequestUnits: new Counter({
      name: 'opstream_cosmos_request_units_total',
      help: 'Request units Cosmos DB charged (x-ms-request-charge of every answer, retries included), by kind of request',
      labelNames: ['kind'],
      registers: r,
    }),
    notifications: new Counter({ name: 'opstream_arm_notifications_total', help: 'ARM async notifications by outcome', labelNames: ['outcome'], registers: r }),
    tapDrops: new Counter({ name: 'opstream_tap_events_dropped_total', help: 'Tap events dropped for slow stream clients', labelNames: ['stream'], registers: r }),
    queueSettlements: new Counter({
      name: 'opstream_queue_settlements_total',
      help: 'Handlings ended, by result: done, requeued (parked to look again), retried (threw, retried with backoff), failed (dead-lettered), abandoned (at stop)',
      labelNames: ['result'],
      registers: r,
    }),
    scheduled: new Gauge({ name: 'opstream_scheduled_operations', help: 'Operations waiting, parked or in flight in this instance', registers: r }),
    serviceBusReceived: new Counter({
      name: 'opstream_service_bus_received_total',
      help: 'Service Bus messages received, by entity (topic/subscription) and outcome: woke (brought status checks forward), ignored (nothing here follows that object, or its state cannot end an operation), invalid',
      labelNames: ['entity', 'outcome'],
      registers: r,
    }),
    serviceBusFailures: new Counter({
      name: 'opstream_service_bus_failures_total',
      help: 'Service Bus errors (the SDK retries and reconnects by itself), by entity and operation',
      labelNames: ['entity', 'operation'],
      registers: r,
    }),
    followFirstCheckDelay: new Gauge({
      name: 'opstream_follow_first_check_delay_seconds',
      help: 'Learned wait between a dispatch and the first Clusters Service status check, by kind of operation',
      labelNames: ['kind'],
      registers: r,
    }),
  };
}

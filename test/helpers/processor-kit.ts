import { azureFields } from '../../src/clusters-service';
import { DeadLettersRepository, OperationsRepository, ResourcesRepository, SubscriptionsRepository } from '../../src/cosmos';
import { parseArmResourceId, resourceDocumentId } from '../../src/domain/ids';
import { CLUSTER_RESOURCE_TYPE, EXTERNAL_AUTH_RESOURCE_TYPE, NODE_POOL_RESOURCE_TYPE } from '../../src/domain/resource-types';
import type {
  ClusterResource,
  ExternalAuthResource,
  NodePoolResource,
  Operation,
  OperationRequest,
  OperationStatus,
  Resource,
  Stored,
  Subscription,
} from '../../src/domain/types';
import type { SubscriptionLocks } from '../../src/locks';
import { silentLogger } from '../../src/logging/logger';
import type { PipelineServices, PipelineSettings } from '../../src/pipeline/context';
import { ArmNotifier } from '../../src/arm/arm-notifier';
import { KnownDocuments } from '../../src/pipeline/known-documents';
import { OwnWrites } from '../../src/pipeline/own-writes';
import { PipelineEvents, type PipelineEvent } from '../../src/pipeline/events';
import type { FollowState } from '../../src/pipeline/reconcile/follow/schedule';
import type { Outcome } from '../../src/pipeline/queue/outcome';
import { OperationReconciler, type OperationRef } from '../../src/pipeline/reconcile/operation-reconciler';
import type { OperationProcessor, ProcessorKit } from '../../src/pipeline/reconcile/processor';
import type { CsEventHints } from '../../src/pipeline/cs-hints';
import type { FollowSettings } from '../../src/pipeline/reconcile/follow/settings';
import { ReportedStates } from '../../src/pipeline/reported-states';
import { route } from '../../src/pipeline/reconcile/router';
import { underLock, writeBack, type WriteBackDeps } from '../../src/pipeline/reconcile/write-back';
import { recordDispatched } from '../../src/pipeline/reconcile/dispatch-record';
import { ManualClock, type TimerClock } from '../../src/util/clock';
import { defaultProcessors } from '../../processors/registry';
import { InMemoryContainer } from './in-memory-container';
import { ScriptedClustersService, type ClusterSeed, type CsSnapshot } from './scripted-clusters-service';
import type { CsClusterAzure } from '../../src/domain/types.generated';

/**
 * A processor's world in memory, for scenario tables: the Operations, Resources and Subscriptions
 * containers (real repositories over `InMemoryContainer`, so etags, 412s and the repositories' own
 * rules are production's), a scripted Clusters Service, a manual clock, the real write-back (under a
 * lock that just runs the critical section) and a fence the test can pull. The processors are the
 * real set from `defaultProcessors`, with its shared Follower; `restart()` builds a new set, as a new
 * instance (or the one a lease moved to) would have, over the same documents and CS.
 */
export const SUBSCRIPTION_ID = '0b3d5e1f-2a4c-4d6e-8f01-23456789abcd';
export const PARTITION_KEY = SUBSCRIPTION_ID;
const TENANT_ID = '72f988bf-86f1-41af-91ab-2d7cd011db47';
export const RESOURCE_GROUP = 'rg1';
const MANAGED_RESOURCE_GROUP = 'rg1-managed';
/** Now, at the start of every scenario: on a whole second, so batch-tick alignment is exact. */
export const T0 = Date.parse('2026-03-02T10:00:00.000Z');
/** When the operations of a scenario started, unless a row says otherwise. */
export const STARTED = new Date(T0 - 60_000).toISOString();

export const FOLLOW: FollowSettings = {
  initialDelayMs: 250,
  maxDelayMs: 10_000,
  batchTickMs: 1000,
  batchWindowMs: 0,
  firstCheckHitRatio: 0.85,
  updateCooldownMs: 60_000,
};
/** `serviceBus.followDelayMs` of an instance that receives Clusters Service events (they always flow here). */
export const CS_EVENTS_FOLLOW_DELAY_MS = 30_000;
export const SETTINGS: PipelineSettings = {
  createDeadlineMs: 3_600_000,
  deleteDeadlineMs: 43_200_000,
  waitDelayMs: 1000,
  createSettleMs: 20_000,
  notificationClaimMs: 30_000,
  notificationDeadlineMs: 3_600_000,
  notificationRetryMaxDelayMs: 60_000,
  notificationConcurrency: 8,
};
/** The first status check after a dispatch, as a fresh instance schedules it (learned later). */
export const FIRST_CHECK_MS = Math.max(FOLLOW.initialDelayMs, FOLLOW.maxDelayMs / 2);

export const CS_PREFIX = '/api/aro_hcp/v1alpha1';

export function clusterArmId(name = 'c1'): string {
  return `/subscriptions/${SUBSCRIPTION_ID}/resourceGroups/${RESOURCE_GROUP}/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/${name}`;
}

export function nodePoolArmId(nodePool = 'np1', cluster = 'c1'): string {
  return `${clusterArmId(cluster)}/nodePools/${nodePool}`;
}

export function externalAuthArmId(name = 'ea1', cluster = 'c1'): string {
  return `${clusterArmId(cluster)}/externalAuths/${name}`;
}

/** The Clusters Service href of cluster `id` (the scenarios' parent cluster is `cs1`). */
export function csClusterHref(id = 'cs1'): string {
  return `${CS_PREFIX}/clusters/${id}`;
}

/** The Clusters Service href of node pool `nodePool` of cluster `cluster`. */
export function csNodePoolHref(nodePool = 'np1', cluster = 'cs1'): string {
  return `${csClusterHref(cluster)}/node_pools/${nodePool}`;
}

/** The Clusters Service href of external auth `externalAuth` of cluster `cluster`. */
export function csExternalAuthHref(externalAuth = 'ea1', cluster = 'cs1'): string {
  return `${csClusterHref(cluster)}/external_auth_config/external_auths/${externalAuth}`;
}

/** An external auth Resource as the frontend writes it: an issuer with one audience, a console client, the email claim. */
export function externalAuthResource(
  fields: Partial<Omit<ExternalAuthResource, 'properties'>> & {
    name?: string;
    cluster?: string;
    properties?: Partial<ExternalAuthResource['properties']>;
  } = {},
): ExternalAuthResource {
  const { name, cluster, properties, ...rest } = fields;
  const resourceId = rest.resourceId ?? externalAuthArmId(name, cluster);
  return {
    id: resourceDocumentId(resourceId),
    partitionKey: PARTITION_KEY,
    resourceId,
    resourceType: EXTERNAL_AUTH_RESOURCE_TYPE,
    internalId: '',
    activeOperationId: 'op-1',
    provisioningState: 'Accepted',
    ...rest,
    properties: {
      issuer: { url: 'https://login.example.com/tenant/v2.0', audiences: ['app-1'] },
      clients: [{ component: { name: 'console', authClientNamespace: 'openshift-console' }, clientId: 'app-1', type: 'Confidential' }],
      claim: { mappings: { username: { claim: 'email' } } },
      ...properties,
    },
  };
}

export function clusterResource(
  fields: Partial<Omit<ClusterResource, 'properties'>> & { name?: string; properties?: Partial<ClusterResource['properties']> } = {},
): ClusterResource {
  const { name, properties, ...rest } = fields;
  const resourceId = rest.resourceId ?? clusterArmId(name);
  return {
    id: resourceDocumentId(resourceId),
    partitionKey: PARTITION_KEY,
    resourceId,
    resourceType: CLUSTER_RESOURCE_TYPE,
    internalId: '',
    activeOperationId: 'op-1',
    provisioningState: 'Accepted',
    ...rest,
    properties: withoutUndefined({ version: '4.18', region: 'eastus', managedResourceGroupName: MANAGED_RESOURCE_GROUP, ...properties }),
  };
}

export function nodePoolResource(
  fields: Partial<Omit<NodePoolResource, 'properties'>> & {
    name?: string;
    cluster?: string;
    properties?: Partial<NodePoolResource['properties']>;
  } = {},
): NodePoolResource {
  const { name, cluster, properties, ...rest } = fields;
  const resourceId = rest.resourceId ?? nodePoolArmId(name, cluster);
  return {
    id: resourceDocumentId(resourceId),
    partitionKey: PARTITION_KEY,
    resourceId,
    resourceType: NODE_POOL_RESOURCE_TYPE,
    internalId: '',
    activeOperationId: 'op-1',
    provisioningState: 'Accepted',
    ...rest,
    properties: { version: '4.18', replicas: 2, ...properties },
  };
}

export function operation(fields: Partial<Operation> & { request: OperationRequest; externalId: string }): Operation {
  const id = fields.id ?? 'op-1';
  const status: OperationStatus = fields.status ?? (fields.request === 'Delete' ? 'Deleting' : 'Accepted');
  return {
    id,
    partitionKey: PARTITION_KEY,
    operationId: `/subscriptions/${SUBSCRIPTION_ID}/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/${id}`,
    startTime: STARTED,
    lastTransitionTime: STARTED,
    internalId: '',
    ...fields,
    status,
  };
}

/** A cluster's Resource at rest: Succeeded, no operation running, CS id `cs1` recorded (unless `fields` say otherwise). */
export function clusterAtRest(fields: Parameters<typeof clusterResource>[0] = {}): ClusterResource {
  return clusterResource({ internalId: csClusterHref(), activeOperationId: '', provisioningState: 'Succeeded', ...fields });
}

/** The id of the Create a Delete supersedes, in the scenarios that have one. */
export const SUPERSEDED_CREATE = 'op-create';

/** A Create still running (Provisioning) on the resource `armId`, which the Delete `op-1` supersedes. */
export function supersededCreate(armId: string, internalId: string): Operation {
  return operation({ id: SUPERSEDED_CREATE, request: 'Create', externalId: armId, status: 'Provisioning', internalId });
}

/**
 * A cluster as Clusters Service holds it: created for the cluster resource `name` of this
 * subscription with its Azure identity, unless `azure` says otherwise (another tenant, say).
 */
export function csCluster(
  id: string,
  state: string,
  fields: Partial<Omit<ClusterSeed, 'id' | 'state' | 'azure'>> & { azure?: Partial<CsClusterAzure> } = {},
): ClusterSeed {
  const { name = 'c1', azure, ...rest } = fields;
  const identity = azureFields({
    subscriptionId: SUBSCRIPTION_ID,
    resourceGroupName: RESOURCE_GROUP,
    resourceName: name,
    tenantId: TENANT_ID,
    managedResourceGroupName: MANAGED_RESOURCE_GROUP,
  });
  // The version the default cluster Resource asks for: an Update with nothing else to change finds it held.
  return { id, state, name: name.toLowerCase(), azure: { ...identity, ...azure }, version: '4.18', ...rest };
}

/** The Subscription document; `tenantId: null` = one without a tenant. */
export function subscription(fields: { tenantId?: string | null } = {}): Subscription {
  const tenantId = fields.tenantId === undefined ? TENANT_ID : fields.tenantId;
  return { id: SUBSCRIPTION_ID, state: 'Registered', ...(tenantId === null ? {} : { properties: { tenantId } }) };
}

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The kinds of Resource an operation of the scenarios is on: cluster `c1`, its node pool `np1`, its external auth `ea1`. */
type ResourceKind = 'cluster' | 'node pool' | 'external auth';

/** A Resource's fields, as the kind's builder takes them (`properties` over the kind's defaults). */
type ResourceFields = Partial<Omit<Resource, 'properties'>> & { properties?: object };

const RESOURCES: Record<
  ResourceKind,
  { armId: (name?: string) => string; build: (fields: ResourceFields & { name?: string }) => Resource }
> = {
  cluster: { armId: (name) => clusterArmId(name), build: (fields) => clusterResource(fields as Parameters<typeof clusterResource>[0]) },
  'node pool': {
    armId: (name) => nodePoolArmId(name),
    build: (fields) => nodePoolResource(fields as Parameters<typeof nodePoolResource>[0]),
  },
  'external auth': {
    armId: (name) => externalAuthArmId(name),
    build: (fields) => externalAuthResource(fields as Parameters<typeof externalAuthResource>[0]),
  },
};

export interface TestbedOptions {
  /** The kind of the Resource that the operation `op-1` is on. */
  readonly kind: ResourceKind;
  readonly request: OperationRequest;
  /** The Resource's name, when not its kind's default. */
  readonly name?: string;
  /** Fields of `op-1` beyond its request and Resource (status, internalId, …). */
  readonly op?: Partial<Operation>;
  /** A CS href recorded as `internalId` on `op-1` and its Resource: on both (default), on one of them, or nowhere. */
  readonly recorded?: { readonly href: string; readonly on?: 'both' | 'operation only' | 'resource only' | 'nowhere' };
  /** How long ago `op-1` started (its start and its last transition); default `STARTED`, a minute ago. */
  readonly startedAgoMs?: number;
  /** Fields of the Resource, over its kind's defaults (active operation `op-1`, Accepted). */
  readonly resource?: ResourceFields;
  /** A document of another kind stands at the Resource's ARM id, with the `resource` fields. */
  readonly documentKind?: ResourceKind;
  /** A node pool's or external auth's cluster: its Resource at rest (`clusterAtRest`) with these fields; `null`: no document. */
  readonly parent?: Partial<ClusterResource> | null;
  /** The Subscription document (default: with a tenant); `null`: none. */
  readonly subscription?: Subscription | null;
  /** What Clusters Service holds. */
  readonly cs?: readonly ClusterSeed[];
  /** Further documents (a superseded Create, a node pool of the cluster, …). */
  readonly also?: ReadonlyArray<Operation | Resource>;
}

/**
 * The world most processor scenarios start from, in one call: the Subscription, the Resource of
 * `kind` and its operation `op-1`, a node pool's or external auth's parent cluster at rest, and
 * what Clusters Service holds. Each option states only what differs from the defaults.
 */
export function processorTestbed(options: TestbedOptions): ProcessorWorld {
  const { kind, name } = options;
  const armId = RESOURCES[kind].armId(name);
  const w = new ProcessorWorld();
  if (options.subscription !== null) w.seed(options.subscription ?? subscription());
  const on = options.recorded?.on ?? 'both';
  const recorded = (where: 'operation only' | 'resource only') =>
    options.recorded ? { internalId: on === 'both' || on === where ? options.recorded.href : '' } : {};
  const resource = { ...recorded('resource only'), ...options.resource };
  w.seed(
    options.documentKind && options.documentKind !== kind
      ? RESOURCES[options.documentKind].build({ ...resource, resourceId: armId })
      : RESOURCES[kind].build({ ...(name === undefined ? {} : { name }), ...resource }),
  );
  const started = options.startedAgoMs === undefined ? {} : startedAgo(options.startedAgoMs);
  w.seed(operation({ request: options.request, externalId: armId, ...started, ...recorded('operation only'), ...options.op }));
  if (kind !== 'cluster' && options.parent !== null) w.seed(clusterAtRest(options.parent));
  w.seed(...(options.also ?? []));
  for (const cluster of options.cs ?? []) w.cs.addCluster(cluster);
  return w;
}

/** An operation's start and last transition, `ms` before `T0`. */
function startedAgo(ms: number): Pick<Operation, 'startTime' | 'lastTransitionTime'> {
  const at = new Date(T0 - ms).toISOString();
  return { startTime: at, lastTransitionTime: at };
}

/** The fence's reason: the handling's lease moved to another instance. */
export class LeaseMoved extends Error {
  override readonly name = 'LeaseMoved';
}

/** What one handling did: the processor the router chose and what it returned, or what it threw. */
export type Handling = { readonly processor: string } & ({ readonly outcome: Outcome } | { readonly error: unknown });

export interface HandleOptions {
  /** Runs after the handling read its documents and before the processor runs (another writer, say). */
  afterRead?: () => void;
  /** The status follow's pacing memory to start from (default: what this instance kept for the operation). */
  follow?: FollowState;
}

export interface WorldSnapshot {
  operations: ReturnType<InMemoryContainer['snapshot']>;
  resources: ReturnType<InMemoryContainer['snapshot']>;
  subscriptions: ReturnType<InMemoryContainer['snapshot']>;
  cs: CsSnapshot;
  now: number;
}

/** The subscription lock, reduced to running the critical section (it is not what these tests are about). */
class InlineLocks implements Pick<SubscriptionLocks, 'withSubscriptionLock'> {
  /** Subscriptions locked, in order. */
  readonly taken: string[] = [];
  async withSubscriptionLock<T>(
    subscriptionId: string,
    fn: (signal: AbortSignal) => Promise<T>,
    options: { signal?: AbortSignal } = {},
  ): Promise<T> {
    options.signal?.throwIfAborted();
    this.taken.push(subscriptionId);
    return fn(new AbortController().signal);
  }
}

export class ProcessorWorld {
  readonly clock = new ManualClock(T0);
  readonly operationDocs = new InMemoryContainer('Operations', 'partitionKey', this.clock);
  readonly resourceDocs = new InMemoryContainer('Resources', 'partitionKey', this.clock);
  readonly subscriptionDocs = new InMemoryContainer('Subscriptions', 'id', this.clock);
  readonly operations = new OperationsRepository(this.operationDocs.asContainer(), { clock: this.clock });
  readonly resources = new ResourcesRepository(this.resourceDocs.asContainer());
  readonly subscriptions = new SubscriptionsRepository(this.subscriptionDocs.asContainer());
  readonly cs = new ScriptedClustersService();
  readonly events = new PipelineEvents();
  /** Every pipeline event emitted, in order. */
  readonly emitted: PipelineEvent[] = [];
  readonly locks = new InlineLocks();
  private fenceController = new AbortController();
  private instance = 0;
  private follows = new Map<string, FollowState>();
  /** What Clusters Service events reported, when the instance receives them (`restart({ csEvents: true })`). */
  private reported = new ReportedStates();
  processors: readonly OperationProcessor[] = [];

  constructor() {
    this.events.events$.subscribe((e) => this.emitted.push(e));
    this.restart();
  }

  /** A new instance takes over: a fresh processor set (and Follower), no pacing memory, no fence. */
  restart(options: { csEvents?: boolean; batchWindowMs?: number } = {}): void {
    this.instance++;
    this.reported = new ReportedStates();
    const reported = this.reported;
    const csEvents: CsEventHints = {
      followDelayMs: CS_EVENTS_FOLLOW_DELAY_MS,
      flowing: () => true,
      reported: (href) => reported.latest(href),
    };
    const follow = { ...FOLLOW, ...(options.batchWindowMs !== undefined ? { batchWindowMs: options.batchWindowMs } : {}) };
    this.processors = defaultProcessors({ cs: this.cs, clock: this.clock, follow, ...(options.csEvents ? { csEvents } : {}) });
    this.fenceController = new AbortController();
    this.follows = new Map();
  }

  /**
   * A Clusters Service event arrived (instances started with `restart({ csEvents: true })` see it):
   * remembered as the receiver does; with `wakes`, the operation's next look counts as brought forward by it.
   */
  csEvent(href: string, state: string, options: { time?: number; wakes?: string } = {}): void {
    this.reported.note({ href, state, time: options.time ?? this.clock.now() });
    if (options.wakes === undefined) return;
    const follow = this.follows.get(options.wakes);
    if (follow?.watch?.href === href && follow.watch.wakeOn.includes(state)) follow.woken = true;
  }

  /** The lease of the handling moved: its CS calls are refused and its writes stop. */
  fence(): void {
    this.fenceController.abort(new LeaseMoved('the lease moved to another instance'));
  }

  get fenced(): boolean {
    return this.fenceController.signal.aborted;
  }

  /**
   * A pipeline context over this world (no ARM notifications: give operations no notificationUri),
   * for running the real `OperationReconciler` with these processors.
   */
  pipelineContext(): PipelineServices {
    return {
      operations: this.operations,
      resources: this.resources,
      subscriptions: this.subscriptions,
      deadLetters: new DeadLettersRepository(new InMemoryContainer('DeadLetters', 'partitionKey', this.clock).asContainer()),
      locks: this.locks as Pick<SubscriptionLocks, 'withSubscriptionLock'> as SubscriptionLocks,
      cs: this.cs,
      notifier: new ArmNotifier(),
      events: this.events,
      ownWrites: new OwnWrites(),
      // Not told of reads and writes: every handling here reads the world's documents afresh.
      known: new KnownDocuments(),
      logger: silentLogger(),
      clock: this.timerClock(),
      settings: SETTINGS,
      instanceId: `scenario-instance-${this.instance}`,
    };
  }

  /**
   * The real `OperationReconciler` over this world (its settling, deadlines and notifications around
   * the processors), and a function that hands it an operation by id as the queue would.
   */
  reconciler(): (operationId?: string) => Promise<Outcome> {
    const reconciler = new OperationReconciler(this.pipelineContext(), this.processors);
    return async (operationId = 'op-1') => reconciler.reconcile(this.queued(operationId));
  }

  /** The operation as the queue hands it to the reconciler, from its document as it is now. */
  queued(operationId = 'op-1'): OperationRef {
    const op = this.operation(operationId);
    if (!op) throw new Error(`scenario setup: no operation ${operationId}`);
    const { partitionKey, id, startTime, externalId: resourceId, request, status } = op;
    return { partitionKey, id, startTime, resourceId, leaseToken: '0', request, status };
  }

  /**
   * The scenario's hand-moved clock where a timer-capable one is asked for: scenarios step time
   * themselves, so a timer armed during a handling is a test defect, said so at once.
   */
  private timerClock(): TimerClock {
    const clock = this.clock;
    return {
      now: () => clock.now(),
      setTimeout: () => {
        throw new Error('a handling armed a timer: scenarios move the clock by hand (ProcessorWorld.clock.advance)');
      },
      clearTimeout: () => undefined,
    };
  }

  /** The kit one handling gets, built as `kitFor` builds it, around the real write-back. */
  kit(): ProcessorKit {
    const fence = this.fenceController.signal;
    const deps: WriteBackDeps = {
      operations: this.operations,
      resources: this.resources,
      locks: this.locks as Pick<SubscriptionLocks, 'withSubscriptionLock'> as SubscriptionLocks,
      events: this.events,
      clock: this.timerClock(),
      settings: SETTINGS,
      instanceId: `scenario-instance-${this.instance}`,
    };
    const handling = { fence };
    return {
      operations: this.operations,
      resources: this.resources,
      subscriptions: this.subscriptions,
      cs: this.cs.withSignal(fence),
      clock: this.clock,
      settings: SETTINGS,
      events: this.events,
      writeBack: (op, change, resource) => writeBack(deps, handling, op, change, resource),
      recordDispatched: (op, internalId, status) => recordDispatched(deps, handling, op, internalId, status),
      underLock: (partitionKey, fn) => underLock(deps, handling, partitionKey, fn),
      checkFence: () => fence.throwIfAborted(),
    };
  }

  // ── documents ─────────────────────────────────────────────────────────────────────────────

  seed(...docs: Array<Operation | Resource | Subscription>): this {
    for (const doc of docs) {
      if ('request' in doc) this.operationDocs.put(doc);
      else if ('resourceType' in doc) this.resourceDocs.put(doc);
      else this.subscriptionDocs.put(doc);
    }
    return this;
  }

  operation(id = 'op-1'): Stored<Operation> | undefined {
    return this.operationDocs.copyOf(PARTITION_KEY, id) as Stored<Operation> | undefined;
  }

  resource(armId: string): Stored<Resource> | undefined {
    return this.resourceDocs.copyOf(PARTITION_KEY, resourceDocumentId(armId)) as Stored<Resource> | undefined;
  }

  /** Another writer (the frontend) changes a Resource: its etag changes under whoever read it. */
  changeResource(armId: string, fields: Partial<Resource>): void {
    this.resourceDocs.change(PARTITION_KEY, resourceDocumentId(armId), (doc) => Object.assign(doc, fields));
  }

  // ── handling ──────────────────────────────────────────────────────────────────────────────

  /**
   * One handling of the operation, as the reconciler does it once it found nothing to settle
   * itself: read the Operation and its Resource, route, run the processor with this instance's kit.
   */
  async handle(operationId = 'op-1', options: HandleOptions = {}): Promise<Handling> {
    const op = await this.operations.read(PARTITION_KEY, operationId);
    if (!op) throw new Error(`scenario setup: no operation ${operationId}`);
    const resource = await this.resources.findFor(op.partitionKey, op.externalId);
    if (!resource) throw new Error(`scenario setup: no resource for ${op.externalId} (the reconciler settles that case itself)`);
    options.afterRead?.();
    const arm = parseArmResourceId(op.externalId);
    const processor = route(this.processors, arm.resourceType, op);
    if (!processor) throw new Error(`scenario setup: no processor for ${arm.resourceType} ${op.request}`);
    const follow = options.follow ?? this.follows.get(op.id) ?? { unchanged: 0 };
    this.follows.set(op.id, follow);
    try {
      const outcome = await processor.reconcile({ op, resource, arm, follow, logger: silentLogger() }, this.kit());
      return { processor: processor.name, outcome };
    } catch (error) {
      return { processor: processor.name, error };
    }
  }

  /** The pacing memory this instance keeps for an operation (as the reconciler keeps it). */
  followOf(operationId = 'op-1'): FollowState | undefined {
    return this.follows.get(operationId);
  }

  snapshot(): WorldSnapshot {
    return {
      operations: this.operationDocs.snapshot(),
      resources: this.resourceDocs.snapshot(),
      subscriptions: this.subscriptionDocs.snapshot(),
      cs: this.cs.snapshot(),
      now: this.clock.now(),
    };
  }

  restore(s: WorldSnapshot): void {
    this.operationDocs.restore(s.operations);
    this.resourceDocs.restore(s.resources);
    this.subscriptionDocs.restore(s.subscriptions);
    this.cs.restore(s.cs);
    this.clock.set(s.now);
    this.emitted.length = 0;
  }
}

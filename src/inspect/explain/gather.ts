import type { Container } from '@azure/cosmos';
import type { ClustersServiceClient } from '../../clusters-service';
import { cosmosStatus, ResourcesRepository, type OpstreamContainers } from '../../cosmos';
import { parseCsHref, resourceDocumentId, subscriptionKey } from '../../domain/ids';
import type { Operation, Resource } from '../../domain/types';
import { check, validate } from '../../schemas/validator';
import { effectivePartitionKey, rangeContains } from '@opstream/changefeed';
import { readLeaseReport } from '../lease-report';
import { diagnose } from './diagnosis';
import { howToAsk } from './owner-hint';
import { csKindOf } from './cs-kind';
import type {
  ClustersServiceView,
  DeadLetterView,
  ExplainReport,
  LeaseView,
  LockView,
  NotificationView,
  OperationView,
  OwnerView,
  ResourceView,
} from './report';

/** Where `explain` reads from, and how to reach the owning instance. */
export interface ExplainSources {
  containers: OpstreamContainers;
  processorName: string;
  leaseExpirationMs: number;
  /** Asks an instance's ops server what it does with the operation (validated by the caller's fetch). */
  askOwner: (url: string, operationId: string) => Promise<unknown>;
  /** The owner's ops server, when given by hand (--owner-url): over what the lease advertises. */
  ownerUrl?: string;
  cs?: ClustersServiceClient;
  now?: () => number;
}

export class OperationNotFoundError extends Error {
  readonly exitCode = 66;
}

const OPERATION_STATUS_ID = /\/providers\/Microsoft\.RedHatOpenShift\/locations\/[^/]+\/hcpOperationStatuses\/([^/]+)$/i;

/**
 * Gathers what `opstream explain` shows, read-only, from Cosmos DB (Operations, Resources, Locks,
 * DeadLetters, Leases), the owning instance's ops server (`/api/operations/<id>`) and, when
 * configured, Clusters Service. Each source that fails is named in the report; only Cosmos failing
 * fails the whole (the caller maps that to an exit code).
 */
export async function explain(query: string, sources: ExplainSources): Promise<ExplainReport> {
  const now = (sources.now ?? Date.now)();
  const { containers } = sources;
  const report: ExplainReport = { query, at: new Date(now).toISOString(), diagnosis: '', deadLetters: [] };
  const target = await findOperation(query.trim(), containers);
  const raw = target.raw;
  const id = target.id;
  if (raw) {
    const checked = check('operation', raw);
    if (checked.ok) report.operation = operationView(checked.value);
    else
      report.invalidOperation = {
        id,
        partitionKey: stringField(raw, 'partitionKey'),
        field: checked.error.field,
        message: checked.error.issues[0].message,
      };
  }
  if (id) report.deadLetters = await deadLettersOf(containers.deadLetters, id);
  if (!report.operation && !report.invalidOperation && report.deadLetters.length === 0) {
    throw new OperationNotFoundError(target.why ?? `no operation ${query} in the Operations container, and no dead letter of it`);
  }
  const pk = report.operation?.subscriptionId ?? report.invalidOperation?.partitionKey ?? target.partitionKey;
  const op = report.operation;
  let resource: Resource | undefined;
  if (op) {
    resource = await new ResourcesRepository(containers.resources).findFor(op.subscriptionId, op.resourceId);
    if (resource) report.resource = resourceView(resource);
    const active = resource?.activeOperationId;
    if (active && active !== op.id) {
      const other = await readOperation(containers.operations, op.subscriptionId, active);
      if (other) report.activeOperation = { id: other.id, request: other.request, status: other.status };
    }
  }
  if (pk) {
    report.lock = await lockOf(containers.locks, pk);
    report.lease = await leaseOf(sources, pk, now);
  }
  if (op && report.lease) report.owner = await ownerOf(sources, report.lease, op.id);
  const href = op?.internalId || resource?.internalId;
  if (op && href && sources.cs) report.clustersService = await csView(sources.cs, href);
  report.diagnosis = diagnose(report, now);
  return report;
}

interface Target {
  id: string;
  raw?: Record<string, unknown>;
  partitionKey?: string;
  why?: string;
}

/** An operation id, the ARM id of its status resource, or the ARM id of the resource it acts on (its active, else newest operation). */
async function findOperation(query: string, containers: OpstreamContainers): Promise<Target> {
  const status = OPERATION_STATUS_ID.exec(query);
  if (!query.startsWith('/') || status) {
    const id = status ? status[1] : query;
    const { resources } = await containers.operations.items
      .query<Record<string, unknown>>({ query: 'SELECT * FROM c WHERE c.id = @id', parameters: [{ name: '@id', value: id }] })
      .fetchAll();
    return { id, raw: resources[0] };
  }
  const sub = /^\/subscriptions\/([^/]+)/i.exec(query)?.[1] ?? '';
  let pk: string;
  try {
    pk = subscriptionKey(sub);
  } catch {
    throw new OperationNotFoundError(`${query} is neither an operation id nor an ARM resource id (/subscriptions/<guid>/resourceGroups/…)`);
  }
  const resource = await readRaw(containers.resources, pk, resourceDocumentId(query));
  const active = typeof resource?.activeOperationId === 'string' ? resource.activeOperationId : undefined;
  if (active) {
    const raw = await readRaw(containers.operations, pk, active);
    if (raw) return { id: active, raw, partitionKey: pk };
  }
  const { resources } = await containers.operations.items
    .query<Record<string, unknown>>(
      {
        query: 'SELECT * FROM c WHERE LOWER(c.externalId) = @armId ORDER BY c.startTime DESC',
        parameters: [{ name: '@armId', value: query.toLowerCase() }],
      },
      { partitionKey: pk },
    )
    .fetchAll();
  const newest = resources[0];
  if (!newest) return { id: '', partitionKey: pk, why: `no operation on ${query} in the Operations container` };
  return { id: String(newest.id), raw: newest, partitionKey: pk };
}

async function readRaw(container: Container, pk: string, id: string): Promise<Record<string, unknown> | undefined> {
  try {
    const { resource } = await container.item(id, pk).read<Record<string, unknown>>();
    return resource ?? undefined;
  } catch (err) {
    if (cosmosStatus(err) === 404) return undefined;
    throw err;
  }
}

async function readOperation(container: Container, pk: string, id: string): Promise<Operation | undefined> {
  const raw = await readRaw(container, pk, id);
  const checked = raw === undefined ? undefined : check('operation', raw);
  return checked?.ok ? checked.value : undefined;
}

function operationView(op: Operation): OperationView {
  return {
    id: op.id,
    subscriptionId: op.partitionKey,
    request: op.request,
    status: op.status,
    resourceId: op.externalId,
    ...(op.internalId ? { internalId: op.internalId } : {}),
    startTime: op.startTime,
    lastTransitionTime: op.lastTransitionTime,
    ...(op.error
      ? { error: { code: op.error.code, message: op.error.message, ...(op.error.target ? { target: op.error.target } : {}) } }
      : {}),
    notification: notificationView(op),
  };
}

function notificationView(op: Operation): NotificationView {
  const terminal = op.status === 'Succeeded' || op.status === 'Failed' || op.status === 'Canceled';
  const delivery = op.notificationDelivery ? { delivery: { ...op.notificationDelivery } } : {};
  if (op.notificationGivenUp) return { state: 'given-up', givenUp: { ...op.notificationGivenUp }, ...delivery };
  if (!op.notificationUri) return op.notificationDelivery?.state === 'delivered' ? { state: 'sent', ...delivery } : { state: 'none' };
  let target: string | undefined;
  try {
    target = new URL(op.notificationUri).origin;
  } catch {
    target = undefined;
  }
  return {
    state: terminal ? 'pending' : 'later',
    ...(target ? { target } : {}),
    ...(op.notificationClaim ? { claim: { ...op.notificationClaim } } : {}),
    ...delivery,
  };
}

function resourceView(r: Resource): ResourceView {
  return {
    id: r.resourceId,
    provisioningState: r.provisioningState,
    ...(r.activeOperationId ? { activeOperationId: r.activeOperationId } : {}),
    ...(r.internalId ? { internalId: r.internalId } : {}),
    ...(r.pendingInternalId ? { pendingInternalId: r.pendingInternalId } : {}),
  };
}

async function deadLettersOf(container: Container, id: string): Promise<DeadLetterView[]> {
  const { resources } = await container.items
    .query<unknown>({ query: 'SELECT * FROM c WHERE c.source.id = @id', parameters: [{ name: '@id', value: id }] })
    .fetchAll();
  const out: DeadLetterView[] = [];
  for (const doc of resources) {
    const checked = check('deadLetter', doc);
    if (!checked.ok) continue;
    const d = checked.value;
    out.push({
      id: d.id,
      reason: d.reason,
      at: d.deadLetteredAt,
      error: { message: d.error.message, ...(d.error.path ? { path: d.error.path } : {}) },
    });
  }
  return out.sort((a, b) => b.at.localeCompare(a.at));
}

async function lockOf(container: Container, pk: string): Promise<LockView> {
  const raw = await readRaw(container, pk, pk);
  if (!raw) return { subscriptionId: pk, held: false };
  const lock = validate('lock', raw);
  const ts = typeof raw._ts === 'number' ? raw._ts : undefined;
  const ttl = typeof raw.ttl === 'number' ? raw.ttl : undefined;
  return {
    subscriptionId: pk,
    held: true,
    owner: lock.owner,
    ...(lock.acquiredAt ? { acquiredAt: lock.acquiredAt } : {}),
    ...(ts !== undefined && ttl !== undefined ? { expiresAt: new Date((ts + ttl) * 1000).toISOString() } : {}),
  };
}

async function leaseOf(sources: ExplainSources, pk: string, now: number): Promise<LeaseView | undefined> {
  const leases = await readLeaseReport({
    feedContainer: sources.containers.operations,
    leaseContainer: sources.containers.leases,
    processorName: sources.processorName,
    leaseExpirationMs: sources.leaseExpirationMs,
    estimateLag: false,
    now: () => now,
  });
  const epk = effectivePartitionKey(pk);
  const row = leases.leases.find((l) => rangeContains(l.range, epk));
  if (!row) return undefined;
  return {
    leaseToken: row.leaseToken,
    range: row.range,
    owner: row.owner,
    lastWrite: row.lastWrite,
    expired: row.expired,
    expiresAt: new Date(Date.parse(row.lastWrite) + sources.leaseExpirationMs).toISOString(),
    ...(row.opsUrl ? { opsUrl: row.opsUrl } : {}),
    ...(row.opsHost ? { opsHost: row.opsHost } : {}),
  };
}

/**
 * What the lease's owner says it does with the operation. An answer is used only when it comes from
 * that owner: an address may reach another instance (a port-forward to the wrong pod, a lease whose
 * URL outlived its writer), whose "absent" would be read as the owner's. Without the owner's own
 * answer the view says how to reach it.
 */
async function ownerOf(sources: ExplainSources, lease: LeaseView, operationId: string): Promise<OwnerView | undefined> {
  if (!lease.owner && !sources.ownerUrl) return undefined;
  const instance = lease.owner ?? '(unknown)';
  const url = sources.ownerUrl ?? lease.opsUrl;
  const ask = howToAsk(instance, lease.opsHost, lease.opsUrl);
  if (!url)
    return {
      instance,
      error: `${instance} did not write where its ops server answers into the lease (an older or non-opstream processor)`,
      ask,
    };
  let state: NonNullable<OwnerView['state']>;
  try {
    state = validate('operationState', await sources.askOwner(url, operationId));
  } catch (err) {
    return { instance, url, error: (err instanceof Error ? err.message : String(err)).split('\n')[0], ask };
  }
  if (lease.owner && state.instance !== lease.owner)
    return {
      instance,
      url,
      answeredBy: state.instance,
      error: `the ops server at ${url} is ${state.instance}, not the lease's owner ${instance}: its answer is not used`,
      ask,
    };
  return { instance, url, state };
}

/**
 * What Clusters Service says of the operation's object, read by its kind: a state and a message, never
 * more (a break-glass credential's kubeconfig is not read into the report).
 */
async function csView(cs: ClustersServiceClient, href: string): Promise<ClustersServiceView> {
  let parsed: ReturnType<typeof parseCsHref>;
  try {
    parsed = parseCsHref(href);
  } catch (err) {
    return { href, kind: 'cluster', error: (err as Error).message };
  }
  const kind = csKindOf(href);
  const { clusterId } = parsed;
  const seen = (state: string, description?: string): ClustersServiceView => ({
    href,
    kind,
    found: true,
    state,
    ...(description ? { description } : {}),
  });
  try {
    if (parsed.nodePoolId !== undefined) {
      const o = await cs.observeNodePoolStatus(clusterId, parsed.nodePoolId);
      return o.found ? seen(o.status.state.node_pool_state_value, o.status.message) : { href, kind, found: false };
    }
    if (parsed.externalAuthId !== undefined) {
      const o = await cs.observeExternalAuth(clusterId, parsed.externalAuthId);
      return o.found ? seen(o.status.status?.state.value ?? 'unknown', o.status.status?.message) : { href, kind, found: false };
    }
    if (parsed.credentialId !== undefined) {
      const o = await cs.observeBreakGlassCredential(clusterId, parsed.credentialId);
      return o.found ? seen(o.status.status) : { href, kind, found: false };
    }
    const o = await cs.observeClusterStatus(clusterId);
    return o.found ? seen(o.status.state, o.status.description) : { href, kind, found: false };
  } catch (err) {
    return { href, kind, error: (err instanceof Error ? err.message : String(err)).split('\n')[0] };
  }
}

function stringField(doc: Record<string, unknown>, name: string): string | undefined {
  const v = doc[name];
  return typeof v === 'string' ? v : undefined;
}

import { randomUUID } from 'crypto';
import { Container, Database, ErrorResponse } from '@azure/cosmos';
import {
  CLUSTER_TYPE,
  EXTERNAL_AUTH_TYPE,
  NODE_POOL_TYPE,
  clusterArmId,
  externalAuthArmId,
  nodePoolArmId,
  operationStatusId,
  resourceDocumentId,
} from './arm-ids';
import { withFrontendLock } from './subscription-lock';
import { OperationHintSender, type HintCounts, type HintSenderOptions } from '@opstream/hint-sender';

/** Where the simulator sends its wake-up hints (the local Service Bus takes a connection string). */
export type FrontendHintsOptions = { connectionString: string } & HintSenderOptions;

export interface FrontendOptions {
  database: Database;
  /** Base URL of an ARM notification receiver; operations get `${base}/notify/${opId}`. */
  notificationBaseUrl?: string;
  location?: string;
  /** Deadlines written on the Resource for the backend to enforce. */
  createDeadlineMs?: number;
  deleteDeadlineMs?: number;
  owner?: string;
  /** How long a write waits for the subscription lock before it fails. @defaultValue 15_000 */
  lockTimeoutMs?: number;
  /**
   * Opt in to wake-up hints: after each Operation write, send `{partitionKey, operationId}` there, as a
   * TypeScript frontend does with `@opstream/hint-sender` (which this uses). @defaultValue none
   */
  hints?: FrontendHintsOptions;
  /** Container names, when opstream is configured with others (cosmos.*Container). @defaultValue Operations, Resources, Subscriptions, Locks */
  containers?: { operations?: string; resources?: string; subscriptions?: string; locks?: string };
}

/** The Resource properties a request writes (an Update: the ones it changes; the rest stay). */
export interface ClusterSpec {
  version?: string;
  region?: string;
  managedResourceGroupName?: string;
  nodeDrainTimeoutMinutes?: number;
  authorizedCidrs?: string[];
  autoscaling?: {
    maxNodesTotal?: number;
    maxPodGracePeriodSeconds?: number;
    maxNodeProvisionTimeSeconds?: number;
    podPriorityThreshold?: number;
  };
}

export interface NodePoolSpec {
  version?: string;
  replicas?: number;
  vmSize?: string;
  labels?: Record<string, string>;
  taints?: Array<{ key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }>;
  nodeDrainTimeoutMinutes?: number;
}

/**
 * An external auth's properties as ARM sends them (the frontend stores them as given): the issuer,
 * the OIDC clients of the cluster's components, and how token claims map to users and groups.
 */
export interface ExternalAuthSpec {
  issuer?: { url: string; audiences: string[]; ca?: string };
  clients?: Array<{
    component: { name: string; authClientNamespace: string };
    clientId: string;
    type: 'Confidential' | 'Public';
    extraScopes?: string[];
  }>;
  claim?: {
    mappings: { username: { claim: string; prefix?: string; prefixPolicy?: string }; groups?: { claim: string; prefix?: string } };
    validationRules?: Array<{ type: 'RequiredClaim'; requiredClaim: { claim: string; requiredValue: string } }>;
  };
}

export type Request = 'Create' | 'Update' | 'Delete' | 'RequestCredential' | 'RevokeCredentials';

/** What ARM (and the caller) sent with one request, and test controls of its handling. */
export interface RequestOptions {
  /** `x-ms-correlation-request-id`. @defaultValue a new uuid, as ARM sends */
  correlationRequestId?: string;
  /** `x-ms-client-request-id`. @defaultValue a new uuid, as ARM clients send */
  clientRequestId?: string;
  /** `Azure-AsyncNotificationUri`, where ARM wants to be told the operation ended. @defaultValue `${notificationBaseUrl}/notify/<operation id>` */
  notificationUri?: (operationId: string) => string;
  /**
   * Keeps the subscription lock after the documents are written until this resolves (tests: a
   * backend write-back then has to wait for the lock).
   */
  holdLock?: () => Promise<unknown>;
  /**
   * Times written as given instead of now (tests of hostile documents: a leap second, year 9999, a time
   * in the future), and a notification claim the frontend never writes.
   */
  documentTimes?: {
    startTime?: string;
    lastTransitionTime?: string;
    createOperationCompletionDeadline?: string;
    notificationClaim?: { owner: string; until: string };
  };
}

export interface WrittenOperation {
  operationId: string;
  partitionKey: string;
  externalId: string;
  resourceDocId: string;
  request: Request;
  /** Wall-clock ms when the Operation write was acknowledged (the frontend answered ARM). */
  writtenAt: number;
  /** With hints on: whether Service Bus took this Operation's hint. */
  hintSent?: boolean;
  correlationRequestId: string;
  clientRequestId: string;
}

/** A request ARM would get 409 for (conflicting operation, missing parent). */
export class FrontendConflictError extends Error {
  readonly status = 409;
}

/**
 * Writes what the ARM frontend of an ARO-HCP style RP writes: the Subscription document, then per
 * request the Resource and the Operation, under the subscription lock, answering at once. It never
 * calls Clusters Service: the backend under test does the rest.
 */
export class FrontendSimulator {
  private readonly operations: Container;
  private readonly resources: Container;
  private readonly subscriptions: Container;
  private readonly locks: Container;
  private readonly location: string;
  private readonly owner: string;
  private readonly hints?: OperationHintSender;

  /** The subscription lock a frontend write holds, as the real frontend takes it. */
  private underLock<T>(pk: string, fn: () => Promise<T>): Promise<T> {
    return withFrontendLock(this.locks, pk, this.owner, fn, { timeoutMs: this.options.lockTimeoutMs });
  }

  constructor(private readonly options: FrontendOptions) {
    const db = options.database;
    const names = options.containers ?? {};
    this.operations = db.container(names.operations ?? 'Operations');
    this.resources = db.container(names.resources ?? 'Resources');
    this.subscriptions = db.container(names.subscriptions ?? 'Subscriptions');
    this.locks = db.container(names.locks ?? 'Locks');
    this.location = options.location ?? 'eastus';
    this.owner = options.owner ?? `frontend-${process.pid}`;
    if (options.hints) {
      const { connectionString, ...sendOptions } = options.hints;
      this.hints = new OperationHintSender({ connectionString }, sendOptions);
    }
  }

  /** Hints sent and failed (undefined without hints). */
  hintCounts(): HintCounts | undefined {
    return this.hints?.counts();
  }

  /** Opens the hint sender's connection and link before the first write (nothing to do without hints). */
  async openHints(): Promise<void> {
    await this.hints?.open();
  }

  /** Closes the hint sender's connection (nothing to do without hints). */
  async close(): Promise<void> {
    await this.hints?.close();
  }

  async registerSubscription(subscriptionId: string, tenantId: string, state = 'Registered'): Promise<void> {
    await this.subscriptions.items.upsert({
      id: subscriptionId.toLowerCase(),
      state,
      registrationDate: new Date().toISOString(),
      properties: { tenantId },
    });
  }

  async createCluster(
    sub: string,
    rg: string,
    name: string,
    spec: ClusterSpec = {},
    request: RequestOptions = {},
  ): Promise<WrittenOperation> {
    const armId = clusterArmId(sub, rg, name);
    const properties = {
      version: spec.version ?? '4.18',
      region: spec.region ?? this.location,
      managedResourceGroupName: spec.managedResourceGroupName ?? `${rg}-${name}-managed`,
    };
    return this.write(sub, armId, CLUSTER_TYPE, 'Create', properties, request);
  }

  async updateCluster(sub: string, rg: string, name: string, spec: ClusterSpec = {}): Promise<WrittenOperation> {
    return this.write(sub, clusterArmId(sub, rg, name), CLUSTER_TYPE, 'Update', { ...spec });
  }

  async deleteCluster(sub: string, rg: string, name: string): Promise<WrittenOperation> {
    return this.write(sub, clusterArmId(sub, rg, name), CLUSTER_TYPE, 'Delete');
  }

  async createNodePool(sub: string, rg: string, cluster: string, name: string, spec: NodePoolSpec = {}): Promise<WrittenOperation> {
    const parent = await this.readResource(sub, clusterArmId(sub, rg, cluster));
    if (!parent || parent.provisioningState === 'Deleting') {
      throw new FrontendConflictError(`cluster ${cluster} does not exist or is being deleted`);
    }
    const properties = { version: spec.version ?? '4.18', replicas: spec.replicas ?? 2, vmSize: spec.vmSize ?? 'Standard_D8s_v3' };
    return this.write(sub, nodePoolArmId(sub, rg, cluster, name), NODE_POOL_TYPE, 'Create', properties);
  }

  async updateNodePool(sub: string, rg: string, cluster: string, name: string, spec: NodePoolSpec): Promise<WrittenOperation> {
    return this.write(sub, nodePoolArmId(sub, rg, cluster, name), NODE_POOL_TYPE, 'Update', { ...spec });
  }

  async deleteNodePool(sub: string, rg: string, cluster: string, name: string): Promise<WrittenOperation> {
    return this.write(sub, nodePoolArmId(sub, rg, cluster, name), NODE_POOL_TYPE, 'Delete');
  }

  /** PUT of a new external auth (an OIDC provider) of an existing cluster; unset fields get a working default. */
  async createExternalAuth(sub: string, rg: string, cluster: string, name: string, spec: ExternalAuthSpec = {}): Promise<WrittenOperation> {
    const parent = await this.readResource(sub, clusterArmId(sub, rg, cluster));
    if (!parent || parent.provisioningState === 'Deleting') {
      throw new FrontendConflictError(`cluster ${cluster} does not exist or is being deleted`);
    }
    const clientId = randomUUID();
    const properties = {
      issuer: spec.issuer ?? { url: `https://login.example.com/${randomUUID()}/v2.0`, audiences: [clientId] },
      clients: spec.clients ?? [
        { component: { name: 'console', authClientNamespace: 'openshift-console' }, clientId, type: 'Confidential' },
      ],
      claim: spec.claim ?? { mappings: { username: { claim: 'email' }, groups: { claim: 'groups' } } },
    };
    return this.write(sub, externalAuthArmId(sub, rg, cluster, name), EXTERNAL_AUTH_TYPE, 'Create', properties);
  }

  /** PATCH of an external auth: the fields given replace the stored ones whole (issuer, clients, claim). */
  async updateExternalAuth(sub: string, rg: string, cluster: string, name: string, spec: ExternalAuthSpec): Promise<WrittenOperation> {
    return this.write(sub, externalAuthArmId(sub, rg, cluster, name), EXTERNAL_AUTH_TYPE, 'Update', { ...spec });
  }

  async deleteExternalAuth(sub: string, rg: string, cluster: string, name: string): Promise<WrittenOperation> {
    return this.write(sub, externalAuthArmId(sub, rg, cluster, name), EXTERNAL_AUTH_TYPE, 'Delete');
  }

  /**
   * ARM `requestadmincredential` on a cluster, as ARO-HCP's frontend writes it: an Operation on the
   * cluster (`internalId` empty), the Resource left as it is.
   */
  async requestCredential(sub: string, rg: string, name: string, request: RequestOptions = {}): Promise<WrittenOperation> {
    return this.write(sub, clusterArmId(sub, rg, name), CLUSTER_TYPE, 'RequestCredential', undefined, request);
  }

  /** ARM `revokecredentials` on a cluster: an Operation on it carrying the cluster's CS id, the Resource left as it is. */
  async revokeCredentials(sub: string, rg: string, name: string, request: RequestOptions = {}): Promise<WrittenOperation> {
    return this.write(sub, clusterArmId(sub, rg, name), CLUSTER_TYPE, 'RevokeCredentials', undefined, request);
  }

  /** Writes a document as is into Operations (tests: malformed or legacy documents). */
  async writeRawOperation(doc: Record<string, unknown>): Promise<void> {
    await this.operations.items.upsert(doc);
  }

  /** The Resource's active operation when it exists and has not ended. */
  private async activeOperation(pk: string, resource: Record<string, unknown>): Promise<{ id: string; status: string } | undefined> {
    const id = resource.activeOperationId;
    if (typeof id !== 'string' || id === '') return undefined;
    try {
      const { resource: op } = await this.operations.item(id, pk).read<{ id: string; status: string }>();
      return op && !['Succeeded', 'Failed', 'Canceled'].includes(op.status) ? op : undefined;
    } catch (err) {
      if ((err as ErrorResponse).code === 404) return undefined;
      throw err;
    }
  }

  private async readResource(sub: string, armId: string): Promise<Record<string, unknown> | undefined> {
    try {
      const { resource } = await this.resources.item(resourceDocumentId(armId), sub.toLowerCase()).read<Record<string, unknown>>();
      return resource ?? undefined;
    } catch (err) {
      if ((err as ErrorResponse).code === 404) return undefined;
      throw err;
    }
  }

  private async write(
    sub: string,
    armId: string,
    resourceType: string,
    request: Request,
    properties?: Record<string, unknown>,
    options: RequestOptions = {},
  ): Promise<WrittenOperation> {
    const pk = sub.toLowerCase();
    const opId = randomUUID();
    const correlationRequestId = options.correlationRequestId ?? randomUUID();
    const clientRequestId = options.clientRequestId ?? randomUUID();
    const now = new Date();
    const status = request === 'Delete' ? 'Deleting' : 'Accepted';
    // A credential action acts on the cluster without taking it over: its Resource is not rewritten.
    const action = request === 'RequestCredential' || request === 'RevokeCredentials';
    const written = await this.underLock(pk, async () => {
      const existing = await this.readResource(sub, armId);
      if (request !== 'Create' && !existing) throw new FrontendConflictError(`${armId} does not exist`);
      // An active operation that was never written (the Operation write failed after the Resource
      // write) or has ended does not hold the resource.
      const active = existing ? await this.activeOperation(pk, existing) : undefined;
      if (active?.status === 'Deleting') throw new FrontendConflictError(`${armId} is being deleted`);
      if (request === 'Create' && active) {
        throw new FrontendConflictError(`${armId} has operation ${active.id} in progress`);
      }
      const deadlines =
        request === 'Create'
          ? { createOperationCompletionDeadline: new Date(now.getTime() + (this.options.createDeadlineMs ?? 3_600_000)).toISOString() }
          : request === 'Delete'
            ? { deleteOperationCompletionDeadline: new Date(now.getTime() + (this.options.deleteDeadlineMs ?? 43_200_000)).toISOString() }
            : {};
      const times = options.documentTimes ?? {};
      const resource: Record<string, unknown> = {
        ...(existing ?? { id: resourceDocumentId(armId), partitionKey: pk, resourceId: armId, resourceType, internalId: '' }),
        ...deadlines,
        ...(times.createOperationCompletionDeadline ? { createOperationCompletionDeadline: times.createOperationCompletionDeadline } : {}),
        properties: { ...((existing?.properties as Record<string, unknown>) ?? {}), ...(properties ?? {}) },
        activeOperationId: opId,
        provisioningState: status,
      };
      if (!action) await this.resources.items.upsert(stripSystem(resource));
      const operation: Record<string, unknown> = {
        id: opId,
        partitionKey: pk,
        tenantId: randomUUID(),
        clientId: randomUUID(),
        request,
        externalId: armId,
        internalId: request === 'RequestCredential' ? '' : ((existing?.internalId as string | undefined) ?? ''),
        operationId: operationStatusId(sub, this.location, opId),
        correlationRequestId,
        clientRequestId,
        startTime: times.startTime ?? now.toISOString(),
        lastTransitionTime: times.lastTransitionTime ?? now.toISOString(),
        status,
        ...(times.notificationClaim ? { notificationClaim: times.notificationClaim } : {}),
      };
      if (options.notificationUri) operation.notificationUri = options.notificationUri(opId);
      else if (this.options.notificationBaseUrl) operation.notificationUri = `${this.options.notificationBaseUrl}/notify/${opId}`;
      await this.operations.items.create(operation);
      const written: WrittenOperation = {
        operationId: opId,
        partitionKey: pk,
        externalId: armId,
        resourceDocId: resource.id as string,
        request,
        writtenAt: Date.now(),
        correlationRequestId,
        clientRequestId,
      };
      await options.holdLock?.();
      return written;
    });
    // Once the lock is released, as a frontend would: the hint never lengthens the lock's hold.
    if (this.hints) written.hintSent = await this.hints.send({ partitionKey: pk, operationId: opId });
    return written;
  }
}

function stripSystem(doc: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!k.startsWith('_')) out[k] = v;
  return out;
}

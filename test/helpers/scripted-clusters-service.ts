import {
  AmbiguousClusterMatchError,
  ClustersServiceBadResponseError,
  ClustersServiceClient,
  ClustersServiceClientError,
  ClustersServiceConflictError,
  ClustersServiceConnectionError,
  ClustersServiceNotFoundError,
  ClustersServiceServerError,
  ClustersServiceThrottledError,
  ClustersServiceTimeoutError,
  azureFields,
  azureIdentitySearch,
  isNotFound,
  matchesAzureIdentity,
  type ArmResourceName,
  type AzureIdentity,
  type DeleteResult,
} from '../../src/clusters-service';
import { parseSearchAlternatives, termMatches, termValues } from '@opstream/clusters-service-simulator/search';
import type { CsObservation } from '../../src/domain/cs-mapping';
import { breakGlassCredentialHref, clusterHref, externalAuthHref, nodePoolHref } from '../../src/domain/ids';
import type { KitClustersService } from '../../src/clusters-service';
import type {
  CsBreakGlassCredential,
  CsCluster,
  CsClusterAzure,
  CsClusterCreateRequest,
  CsClusterStatus,
  CsClusterUpdateRequest,
  CsExternalAuth,
  CsExternalAuthCreateRequest,
  CsExternalAuthUpdateRequest,
  CsInflightCheck,
  CsNodePool,
  CsNodePoolCreateRequest,
  CsNodePoolStatus,
  CsNodePoolUpdateRequest,
} from '../../src/domain/types.generated';
import { validate } from '../../src/schemas/validator';

/**
 * A Clusters Service the test scripts: a table of clusters and node pools with their states, every
 * call recorded (`calls`, as `method target`), and per-call faults thrown as the real client throws
 * them (the error classes of src/clusters-service, so `isOutcomeUnknown`, `isConflict` and the
 * permanent-refusal check see what production sees). It behaves like the CS simulator where no
 * fault is scripted: a create with a taken id or a node pool of a cluster being deleted is a 409, an
 * update of an object that is not ready is a 409, a DELETE starts `uninstalling`, 404 on a DELETE
 * is "already gone" and on a status read "not found".
 *
 * It is a `ClustersServiceClient` so that it fits wherever one is expected, but it never uses the
 * HTTP transport: its base URL is a closed port, so a call this class does not play fails loudly.
 * `withSignal` gives the fenced view a handling gets: once its signal aborts, calls are refused
 * before reaching CS (recorded in `refused`, not in `calls`), as the real transport refuses them.
 */
export interface ScriptedNodePool {
  id: string;
  state: string;
  message?: string;
  replicas?: number;
  version?: string;
  /** The body of the POST that created it, when it was created during the test. */
  created?: CsNodePoolCreateRequest;
  /** The body of the last PATCH CS took. */
  patched?: CsNodePoolUpdateRequest;
  /** What else CS holds of it (labels, taints, drain grace period, autoscaling), as GET answers it. */
  spec?: Pick<CsNodePool, 'labels' | 'taints' | 'node_drain_grace_period' | 'autoscaling'>;
}

export interface ScriptedExternalAuth {
  id: string;
  state: string;
  message?: string;
  /** issuer, clients and claim as CS holds them (the create body without its id, patches applied). */
  spec: Omit<CsExternalAuthCreateRequest, 'id'>;
  /** The body of the last PATCH CS took. */
  patched?: CsExternalAuthUpdateRequest;
}

export interface ScriptedCluster {
  id: string;
  name: string;
  azure: CsClusterAzure;
  state: string;
  description?: string;
  provision_error_code?: string;
  provision_error_message?: string;
  version?: string;
  inflightChecks?: CsInflightCheck[];
  /** What else CS holds of it (drain grace period, API access, autoscaler), as GET answers it. */
  spec?: Pick<CsCluster, 'api' | 'node_drain_grace_period' | 'autoscaler'>;
  /** The body of the last PATCH CS took. */
  patched?: CsClusterUpdateRequest;
  nodePools: Map<string, ScriptedNodePool>;
  externalAuths: Map<string, ScriptedExternalAuth>;
}

/** A cluster to put in the script: its node pools and external auths as lists. */
export type ClusterSeed = Omit<ScriptedCluster, 'nodePools' | 'externalAuths'> & {
  nodePools?: ScriptedNodePool[];
  externalAuths?: ScriptedExternalAuth[];
};

export type CsMethod = keyof KitClustersService;

/**
 * How a scripted call fails. `lost-answer`, `bad-response`, `applied-5xx` and `crash` first take
 * effect in CS: the answer is lost (timeout, outcome unknown), malformed, a 5xx from a gateway in
 * front of CS, or the process died (`ProcessCrash`).
 */
export type CsFault =
  | '5xx'
  | 'applied-5xx'
  | '429'
  | 'timeout'
  | 'connection-lost'
  | 'lost-answer'
  | 'bad-response'
  | 'crash'
  | '400'
  | '401'
  | '404'
  | '409'
  | 'ambiguous';

/** The process died while the call was out: nothing after it ran. Thrown by the `crash` fault. */
export class ProcessCrash extends Error {
  override readonly name = 'ProcessCrash';
}

interface ScriptedFault {
  method: CsMethod;
  fault: CsFault;
  reason: string;
  times: number;
}

interface ScriptedHook {
  method: CsMethod;
  run: () => void | Promise<void>;
}

export interface CsSnapshot {
  readonly clusters: Map<string, ScriptedCluster>;
  readonly credentials: Map<string, Map<string, string>>;
  readonly seq: number;
}

/** What the scripts of every view (unfenced, fenced) share. */
class CsState {
  clusters = new Map<string, ScriptedCluster>();
  /** Break-glass credentials by cluster id, then credential id: their state. */
  credentials = new Map<string, Map<string, string>>();
  calls: string[] = [];
  refused: string[] = [];
  faults: ScriptedFault[] = [];
  hooks: ScriptedHook[] = [];
  seq = 0;
}

const EXTERNAL_AUTH = '/clusters/{id}/external_auth_config/external_auths/{externalAuth}';

const HTTP: Record<CsMethod, { method: string; template: string; mutates: boolean }> = {
  findClusterByAzureIdentity: { method: 'GET', template: '/clusters', mutates: false },
  findClustersByArmName: { method: 'GET', template: '/clusters', mutates: false },
  searchClusters: { method: 'GET', template: '/clusters', mutates: false },
  createCluster: { method: 'POST', template: '/clusters', mutates: true },
  updateCluster: { method: 'PATCH', template: '/clusters/{id}', mutates: true },
  getCluster: { method: 'GET', template: '/clusters/{id}', mutates: false },
  deleteCluster: { method: 'DELETE', template: '/clusters/{id}', mutates: false },
  getInflightChecks: { method: 'GET', template: '/clusters/{id}/inflight_checks', mutates: false },
  observeClusterStatus: { method: 'GET', template: '/clusters/{id}/status', mutates: false },
  createNodePool: { method: 'POST', template: '/clusters/{id}/node_pools', mutates: true },
  getNodePool: { method: 'GET', template: '/clusters/{id}/node_pools/{nodePool}', mutates: false },
  observeNodePool: { method: 'GET', template: '/clusters/{id}/node_pools/{nodePool}', mutates: false },
  listNodePools: { method: 'GET', template: '/clusters/{id}/node_pools', mutates: false },
  updateNodePool: { method: 'PATCH', template: '/clusters/{id}/node_pools/{nodePool}', mutates: true },
  deleteNodePool: { method: 'DELETE', template: '/clusters/{id}/node_pools/{nodePool}', mutates: false },
  observeNodePoolStatus: { method: 'GET', template: '/clusters/{id}/node_pools/{nodePool}/status', mutates: false },
  requestBreakGlassCredential: { method: 'POST', template: '/clusters/{id}/break_glass_credentials', mutates: true },
  observeBreakGlassCredential: { method: 'GET', template: '/clusters/{id}/break_glass_credentials/{credential}', mutates: false },
  listBreakGlassCredentials: { method: 'GET', template: '/clusters/{id}/break_glass_credentials', mutates: false },
  revokeBreakGlassCredentials: { method: 'DELETE', template: '/clusters/{id}/break_glass_credentials', mutates: false },
  createExternalAuth: { method: 'POST', template: '/clusters/{id}/external_auth_config/external_auths', mutates: true },
  getExternalAuth: { method: 'GET', template: EXTERNAL_AUTH, mutates: false },
  observeExternalAuth: { method: 'GET', template: EXTERNAL_AUTH, mutates: false },
  listExternalAuths: { method: 'GET', template: '/clusters/{id}/external_auth_config/external_auths', mutates: false },
  updateExternalAuth: { method: 'PATCH', template: EXTERNAL_AUTH, mutates: true },
  deleteExternalAuth: { method: 'DELETE', template: EXTERNAL_AUTH, mutates: false },
};

export class ScriptedClustersService extends ClustersServiceClient {
  constructor(
    private readonly state: CsState = new CsState(),
    private readonly signal?: AbortSignal,
  ) {
    super({ baseUrl: 'http://127.0.0.1:9' });
  }

  // ── scripting ─────────────────────────────────────────────────────────────────────────────

  /** Every call that reached CS, in order, as `method target` (e.g. `createCluster 1f2e…`). */
  get calls(): readonly string[] {
    return this.state.calls;
  }

  /** Calls a fenced view refused before they reached CS. */
  get refused(): readonly string[] {
    return this.state.refused;
  }

  /** The next `times` calls of `method` fail with `fault`. */
  fail(method: CsMethod, fault: CsFault, options: { times?: number; reason?: string } = {}): this {
    this.state.faults.push({ method, fault, times: options.times ?? 1, reason: options.reason ?? `scripted ${fault}` });
    return this;
  }

  /**
   * Runs `fn` when the next call of `method` arrives, before CS acts on it (something happening
   * meanwhile); the call is answered once `fn` settled, so `fn` may run a whole other handling.
   */
  during(method: CsMethod, fn: () => void | Promise<void>): this {
    this.state.hooks.push({ method, run: fn });
    return this;
  }

  addCluster(cluster: ClusterSeed): ScriptedCluster {
    const { nodePools, externalAuths, ...rest } = cluster;
    const added: ScriptedCluster = {
      ...rest,
      nodePools: new Map((nodePools ?? []).map((np) => [np.id, { ...np }])),
      externalAuths: new Map((externalAuths ?? []).map((ea) => [ea.id, structuredClone(ea)])),
    };
    this.state.clusters.set(added.id, added);
    return added;
  }

  addNodePool(clusterId: string, nodePool: ScriptedNodePool): void {
    this.mustHave(clusterId).nodePools.set(nodePool.id, { ...nodePool });
  }

  addExternalAuth(clusterId: string, externalAuth: ScriptedExternalAuth): void {
    this.mustHave(clusterId).externalAuths.set(externalAuth.id, structuredClone(externalAuth));
  }

  /** An external auth as the script holds it (undefined when CS has none by that id). */
  externalAuth(clusterId: string, id: string): ScriptedExternalAuth | undefined {
    return this.state.clusters.get(clusterId)?.externalAuths.get(id);
  }

  setExternalAuthState(clusterId: string, id: string, state: string, message?: string): void {
    const ea = this.mustHave(clusterId).externalAuths.get(id);
    if (!ea) throw new Error(`no external auth ${clusterId}/${id} to change`);
    Object.assign(ea, { state }, message === undefined ? {} : { message });
  }

  cluster(id: string): ScriptedCluster | undefined {
    return this.state.clusters.get(id);
  }

  get clusters(): ScriptedCluster[] {
    return [...this.state.clusters.values()];
  }

  /** Clusters ARM knows by this name (whatever tenant or managed resource group). */
  clustersNamed(name: ArmResourceName): ScriptedCluster[] {
    const want = azureFields({ ...name, tenantId: '', managedResourceGroupName: '' });
    return this.clusters.filter(
      (c) =>
        c.azure.subscription_id === want.subscription_id &&
        c.azure.resource_group_name === want.resource_group_name &&
        c.azure.resource_name === want.resource_name,
    );
  }

  setState(
    clusterId: string,
    state: string,
    extra: Partial<Pick<ScriptedCluster, 'description' | 'provision_error_code' | 'provision_error_message'>> = {},
  ): void {
    Object.assign(this.mustHave(clusterId), { state }, extra);
  }

  setNodePoolState(clusterId: string, nodePoolId: string, state: string, message?: string): void {
    const np = this.mustHave(clusterId).nodePools.get(nodePoolId);
    if (!np) throw new Error(`no node pool ${clusterId}/${nodePoolId} to change`);
    Object.assign(np, { state }, message === undefined ? {} : { message });
  }

  /** Deletions CS was asked for finish: uninstalling clusters, node pools and external auths are gone. */
  finishDeletes(): void {
    for (const [id, c] of this.state.clusters) {
      if (c.state === 'uninstalling') this.state.clusters.delete(id);
      else {
        for (const [npId, np] of c.nodePools) if (np.state === 'uninstalling') c.nodePools.delete(npId);
        for (const [eaId, ea] of c.externalAuths) if (ea.state === 'uninstalling') c.externalAuths.delete(eaId);
      }
    }
  }

  /** The break-glass credentials of a cluster and their states, in the order they were made. */
  credentialsOf(clusterId: string): Array<{ id: string; status: string }> {
    return [...(this.state.credentials.get(clusterId) ?? new Map<string, string>())].map(([id, status]) => ({ id, status }));
  }

  setCredentialState(clusterId: string, credentialId: string, status: string): void {
    const of = this.state.credentials.get(clusterId);
    if (!of?.has(credentialId)) throw new Error(`no credential ${clusterId}/${credentialId} to change`);
    of.set(credentialId, status);
  }

  /** Revocations CS was asked for finish: awaiting_revocation credentials are revoked. */
  finishRevocations(): void {
    for (const of of this.state.credentials.values())
      for (const [id, status] of of) if (status === 'awaiting_revocation') of.set(id, 'revoked');
  }

  /** The clusters as they are now (calls, faults and hooks are not part of it). */
  snapshot(): CsSnapshot {
    return { clusters: structuredClone(this.state.clusters), credentials: structuredClone(this.state.credentials), seq: this.state.seq };
  }

  /** Back to `snapshot`, with no call recorded and nothing scripted. */
  restore(snapshot: CsSnapshot): void {
    Object.assign(this.state, {
      clusters: structuredClone(snapshot.clusters),
      credentials: structuredClone(snapshot.credentials),
      seq: snapshot.seq,
      calls: [],
      refused: [],
      faults: [],
      hooks: [],
    });
  }

  // ── the client ────────────────────────────────────────────────────────────────────────────

  override withSignal(signal: AbortSignal): ScriptedClustersService {
    return new ScriptedClustersService(this.state, signal);
  }

  /** One handling's view: fenced by its signal; headers and logger have nothing to reach here. */
  override scoped(scope: { signal?: AbortSignal }): ScriptedClustersService {
    return scope.signal ? this.withSignal(scope.signal) : this;
  }

  override async createCluster(body: CsClusterCreateRequest): Promise<CsCluster> {
    validate('csClusterCreate', body);
    return this.call('createCluster', body.id ?? '', () => {
      const id = body.id ?? `cs${++this.state.seq}`;
      if (this.state.clusters.has(id)) throw this.httpError('createCluster', id, '409', `Cluster '${id}' already exists`);
      const created = this.addCluster({ id, name: body.name, azure: body.azure, state: 'pending', version: body.version.id });
      return this.toCluster(created);
    });
  }

  override async updateCluster(clusterId: string, patch: CsClusterUpdateRequest): Promise<CsCluster> {
    validate('csClusterUpdate', patch);
    return this.call('updateCluster', clusterId, () => {
      const c = this.existing('updateCluster', clusterId);
      if (c.state !== 'ready')
        throw this.httpError('updateCluster', clusterId, '409', `Cluster '${clusterId}' is ${c.state}; it can be updated only when ready`);
      const { version, ...rest } = patch;
      Object.assign(
        c,
        { state: 'updating', patched: structuredClone(patch), spec: merged(c.spec, rest) },
        version ? { version: version.id } : {},
      );
      return this.toCluster(c);
    });
  }

  override async getCluster(clusterId: string): Promise<CsCluster> {
    return this.call('getCluster', clusterId, () => this.toCluster(this.existing('getCluster', clusterId)));
  }

  override async deleteCluster(clusterId: string): Promise<DeleteResult> {
    return gone(
      this.call('deleteCluster', clusterId, () => {
        this.existing('deleteCluster', clusterId).state = 'uninstalling';
        return { alreadyGone: false };
      }),
    );
  }

  override async getInflightChecks(clusterId: string): Promise<CsInflightCheck[]> {
    return this.call('getInflightChecks', clusterId, () =>
      (this.existing('getInflightChecks', clusterId).inflightChecks ?? []).map((c) => validate('csInflightCheck', c)),
    );
  }

  /**
   * Plays the searches opstream sends: `id in (…)` and ARM-name conjunctions, joined by `or`. The call
   * is recorded as `searchClusters <ids>` and/or `named <resource name>` per name searched.
   */
  override async searchClusters(search: string): Promise<CsCluster[]> {
    const alternatives = parseSearchAlternatives(search);
    const target = alternatives
      .map((terms) => {
        const ids = terms.find((t) => t.field === 'id');
        if (ids) return termValues(ids).join(',');
        const name = terms.find((t) => t.field === 'azure.resource_name');
        if (name) return `named ${termValues(name).join(',')}`;
        throw new Error(`ScriptedClustersService plays only searches by id and by ARM name, not ${search}`);
      })
      .join(' ');
    return this.call('searchClusters', target, () =>
      this.clusters.map((c) => this.toCluster(c)).filter((c) => alternatives.some((terms) => terms.every((t) => termMatches(c, t)))),
    );
  }

  override async findClusterByAzureIdentity(identity: AzureIdentity): Promise<CsCluster | undefined> {
    const matches = await this.call('findClusterByAzureIdentity', '', () =>
      this.clusters.map((c) => this.toCluster(c)).filter((c) => matchesAzureIdentity(c, identity)),
    );
    if (matches.length > 1)
      throw new AmbiguousClusterMatchError(
        matches.map((c) => c.id),
        azureIdentitySearch(identity),
      );
    return matches[0];
  }

  override async findClustersByArmName(name: ArmResourceName): Promise<CsCluster[]> {
    return this.call('findClustersByArmName', '', () => this.clustersNamed(name).map((c) => this.toCluster(c)));
  }

  override async observeClusterStatus(clusterId: string): Promise<CsObservation<CsClusterStatus>> {
    return observed(this.call('observeClusterStatus', clusterId, () => this.toStatus(this.existing('observeClusterStatus', clusterId))));
  }

  override async createNodePool(clusterId: string, body: CsNodePoolCreateRequest): Promise<CsNodePool> {
    validate('csNodePoolCreate', body);
    return this.call('createNodePool', `${clusterId}/${body.id}`, () => {
      const c = this.existing('createNodePool', clusterId);
      if (c.state === 'uninstalling') throw this.httpError('createNodePool', clusterId, '409', `Cluster '${clusterId}' is being deleted`);
      if (c.nodePools.has(body.id))
        throw this.httpError('createNodePool', clusterId, '409', `Node pool '${body.id}' already exists in cluster '${clusterId}'`);
      const np: ScriptedNodePool = {
        id: body.id,
        state: 'pending',
        version: body.version.id,
        ...(body.replicas === undefined ? {} : { replicas: body.replicas }),
        created: structuredClone(body),
      };
      c.nodePools.set(np.id, np);
      return this.toNodePool(clusterId, np);
    });
  }

  override async getNodePool(clusterId: string, nodePoolId: string): Promise<CsNodePool> {
    return this.call('getNodePool', `${clusterId}/${nodePoolId}`, () =>
      this.toNodePool(clusterId, this.existingNodePool('getNodePool', clusterId, nodePoolId)),
    );
  }

  override async updateNodePool(clusterId: string, nodePoolId: string, patch: CsNodePoolUpdateRequest): Promise<CsNodePool> {
    validate('csNodePoolUpdate', patch);
    return this.call('updateNodePool', `${clusterId}/${nodePoolId}`, () => {
      const np = this.existingNodePool('updateNodePool', clusterId, nodePoolId);
      if (np.state !== 'ready')
        throw this.httpError(
          'updateNodePool',
          clusterId,
          '409',
          `Node pool '${nodePoolId}' is ${np.state}; it can be updated only when ready`,
        );
      const { version, replicas, auto_repair: _autoRepair, ...rest } = patch;
      Object.assign(
        np,
        { state: 'updating', patched: structuredClone(patch), spec: merged(np.spec, rest) },
        replicas === undefined ? {} : { replicas },
        version ? { version: version.id } : {},
      );
      return this.toNodePool(clusterId, np);
    });
  }

  override async observeNodePool(clusterId: string, nodePoolId: string): Promise<CsObservation<CsNodePool>> {
    return observed(
      this.call('observeNodePool', `${clusterId}/${nodePoolId}`, () => {
        const cluster = this.existing('observeNodePool', clusterId);
        const np = this.existingNodePool('observeNodePool', clusterId, nodePoolId);
        const state = cluster.state === 'uninstalling' ? 'uninstalling' : np.state;
        return this.toNodePool(clusterId, np, {
          state: { node_pool_state_value: state },
          ...(np.message === undefined ? {} : { message: np.message }),
        });
      }),
    );
  }

  /** One cluster's node pools, each with its status; recorded as `listNodePools <cluster>`. */
  override async listNodePools(clusterId: string): Promise<CsNodePool[]> {
    return this.call('listNodePools', clusterId, () => {
      const cluster = this.existing('listNodePools', clusterId);
      return [...cluster.nodePools.values()].map((np) =>
        this.toNodePool(clusterId, np, {
          state: { node_pool_state_value: cluster.state === 'uninstalling' ? 'uninstalling' : np.state },
          ...(np.message === undefined ? {} : { message: np.message }),
        }),
      );
    });
  }

  override async deleteNodePool(clusterId: string, nodePoolId: string): Promise<DeleteResult> {
    return gone(
      this.call('deleteNodePool', `${clusterId}/${nodePoolId}`, () => {
        this.existingNodePool('deleteNodePool', clusterId, nodePoolId).state = 'uninstalling';
        return { alreadyGone: false };
      }),
    );
  }

  override async observeNodePoolStatus(clusterId: string, nodePoolId: string): Promise<CsObservation<CsNodePoolStatus>> {
    return observed(
      this.call('observeNodePoolStatus', `${clusterId}/${nodePoolId}`, () => {
        const cluster = this.existing('observeNodePoolStatus', clusterId);
        const np = this.existingNodePool('observeNodePoolStatus', clusterId, nodePoolId);
        // A node pool of a cluster being uninstalled is uninstalling too (as the simulator says).
        const state = cluster.state === 'uninstalling' ? 'uninstalling' : np.state;
        return validate('csNodePoolStatus', {
          kind: 'NodePoolStatus',
          id: np.id,
          href: `${nodePoolHref(clusterId, np.id)}/status`,
          state: { node_pool_state_value: state },
          ...(np.message === undefined ? {} : { message: np.message }),
        });
      }),
    );
  }

  override async requestBreakGlassCredential(clusterId: string, body: { id?: string }): Promise<CsBreakGlassCredential> {
    return this.call('requestBreakGlassCredential', `${clusterId}/${body.id ?? ''}`, () => {
      const cluster = this.existing('requestBreakGlassCredential', clusterId);
      if (cluster.state !== 'ready')
        throw this.httpError('requestBreakGlassCredential', clusterId, '400', `Cluster '${clusterId}' is not ready`);
      const of = this.state.credentials.get(clusterId) ?? new Map<string, string>();
      this.state.credentials.set(clusterId, of);
      const id = body.id ?? `bgc${++this.state.seq}`;
      if (of.has(id))
        throw this.httpError('requestBreakGlassCredential', clusterId, '409', `Break glass credential '${id}' already exists`);
      of.set(id, 'created');
      return credential(clusterId, id, 'created');
    });
  }

  override async observeBreakGlassCredential(clusterId: string, credentialId: string): Promise<CsObservation<CsBreakGlassCredential>> {
    return observed(
      this.call('observeBreakGlassCredential', `${clusterId}/${credentialId}`, () => {
        this.existing('observeBreakGlassCredential', clusterId);
        const status = this.state.credentials.get(clusterId)?.get(credentialId);
        if (status === undefined)
          throw this.httpError('observeBreakGlassCredential', clusterId, '404', `Break glass credential '${credentialId}' not found`);
        return credential(clusterId, credentialId, status);
      }),
    );
  }

  override async listBreakGlassCredentials(clusterId: string): Promise<CsBreakGlassCredential[]> {
    return this.call('listBreakGlassCredentials', clusterId, () => {
      this.existing('listBreakGlassCredentials', clusterId);
      return this.credentialsOf(clusterId).map(({ id, status }) => credential(clusterId, id, status));
    });
  }

  /** Every created or issued credential awaits revocation; a second revocation while one is pending succeeds (as the client reports CS's 400). */
  override async revokeBreakGlassCredentials(clusterId: string): Promise<void> {
    return this.call('revokeBreakGlassCredentials', clusterId, () => {
      this.existing('revokeBreakGlassCredentials', clusterId);
      const of = this.state.credentials.get(clusterId);
      for (const [id, status] of of ?? []) if (status === 'created' || status === 'issued') of?.set(id, 'awaiting_revocation');
    });
  }

  /** As the simulator: a new external auth is `installing`; 409 when its id is taken or its cluster is being deleted. */
  override async createExternalAuth(clusterId: string, body: CsExternalAuthCreateRequest): Promise<CsExternalAuth> {
    validate('csExternalAuthCreate', body);
    return this.call('createExternalAuth', `${clusterId}/${body.id}`, () => {
      const c = this.existing('createExternalAuth', clusterId);
      if (c.state === 'uninstalling')
        throw this.httpError('createExternalAuth', clusterId, '409', `Cluster '${clusterId}' is being deleted`);
      if (c.externalAuths.has(body.id))
        throw this.httpError(
          'createExternalAuth',
          clusterId,
          '409',
          `External auth '${body.id}' already exists for cluster '${clusterId}'`,
        );
      const { id, ...spec } = body;
      const ea: ScriptedExternalAuth = { id, state: 'installing', spec: structuredClone(spec) };
      c.externalAuths.set(id, ea);
      return this.toExternalAuth(clusterId, ea);
    });
  }

  override async getExternalAuth(clusterId: string, externalAuthId: string): Promise<CsExternalAuth> {
    return this.call('getExternalAuth', `${clusterId}/${externalAuthId}`, () =>
      this.readExternalAuth('getExternalAuth', clusterId, externalAuthId),
    );
  }

  override async observeExternalAuth(clusterId: string, externalAuthId: string): Promise<CsObservation<CsExternalAuth>> {
    return observed(
      this.call('observeExternalAuth', `${clusterId}/${externalAuthId}`, () =>
        this.readExternalAuth('observeExternalAuth', clusterId, externalAuthId),
      ),
    );
  }

  /** One cluster's external auths, each with its status; recorded as `listExternalAuths <cluster>`. */
  override async listExternalAuths(clusterId: string): Promise<CsExternalAuth[]> {
    return this.call('listExternalAuths', clusterId, () => {
      const cluster = this.existing('listExternalAuths', clusterId);
      return [...cluster.externalAuths.keys()].map((id) => this.readExternalAuth('listExternalAuths', clusterId, id));
    });
  }

  /** As the simulator: the spec changes and the external auth is `updating`; 409 while it is being deleted. */
  override async updateExternalAuth(
    clusterId: string,
    externalAuthId: string,
    patch: CsExternalAuthUpdateRequest,
  ): Promise<CsExternalAuth> {
    validate('csExternalAuthUpdate', patch);
    return this.call('updateExternalAuth', `${clusterId}/${externalAuthId}`, () => {
      const ea = this.existingExternalAuth('updateExternalAuth', clusterId, externalAuthId);
      if (ea.state === 'uninstalling')
        throw this.httpError(
          'updateExternalAuth',
          clusterId,
          '409',
          `External auth '${externalAuthId}' is being deleted; it cannot be updated`,
        );
      Object.assign(ea, { state: 'updating', spec: { ...ea.spec, ...structuredClone(patch) }, patched: structuredClone(patch) });
      delete ea.message;
      return this.toExternalAuth(clusterId, ea);
    });
  }

  override async deleteExternalAuth(clusterId: string, externalAuthId: string): Promise<DeleteResult> {
    return gone(
      this.call('deleteExternalAuth', `${clusterId}/${externalAuthId}`, () => {
        this.existingExternalAuth('deleteExternalAuth', clusterId, externalAuthId).state = 'uninstalling';
        return { alreadyGone: false };
      }),
    );
  }

  // ── plumbing ──────────────────────────────────────────────────────────────────────────────

  /** Records the call, refuses it when fenced, runs a hook, then the fault or the effect. */
  private async call<T>(method: CsMethod, target: string, effect: () => T): Promise<T> {
    const label = target ? `${method} ${target}` : method;
    if (this.signal?.aborted) {
      this.state.refused.push(label);
      throw this.signal.reason;
    }
    this.state.calls.push(label);
    const hook = this.state.hooks.findIndex((h) => h.method === method);
    if (hook >= 0) await this.state.hooks.splice(hook, 1)[0]?.run();
    // An answer comes back later than the call went out: let whatever else is running move first.
    await Promise.resolve();
    const scripted = this.state.faults.find((f) => f.method === method && f.times > 0);
    if (!scripted) return effect();
    scripted.times--;
    const { fault, reason } = scripted;
    const call = this.callContext(method, target);
    switch (fault) {
      case 'lost-answer':
        effect();
        throw new ClustersServiceTimeoutError(call, 10_000, true);
      case 'bad-response':
        effect();
        throw new ClustersServiceBadResponseError(call, reason);
      case 'applied-5xx':
        effect();
        throw this.httpError(method, target, '5xx', reason);
      case 'crash':
        effect();
        throw new ProcessCrash(`the process died during ${label}`);
      case 'timeout':
        throw new ClustersServiceTimeoutError(call, 10_000, HTTP[method].mutates);
      case 'connection-lost':
        throw new ClustersServiceConnectionError(
          call,
          HTTP[method].mutates,
          Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
        );
      case 'ambiguous':
        throw new AmbiguousClusterMatchError(['a1', 'a2'], 'scripted');
      default:
        throw this.httpError(method, target, fault, reason);
    }
  }

  private httpError(method: CsMethod, target: string, fault: '5xx' | '429' | '400' | '401' | '404' | '409', reason: string): Error {
    const call = this.callContext(method, target);
    switch (fault) {
      case '5xx':
        return new ClustersServiceServerError(call, 503, 'CLUSTERS-MGMT-503', reason);
      case '429':
        return new ClustersServiceThrottledError(call, 429, 'CLUSTERS-MGMT-429', reason, 1000);
      case '400':
        return new ClustersServiceClientError(call, 400, 'CLUSTERS-MGMT-400', reason);
      case '401':
        return new ClustersServiceClientError(call, 401, 'CLUSTERS-MGMT-401', reason);
      case '404':
        return new ClustersServiceNotFoundError(call, 404, 'CLUSTERS-MGMT-404', reason);
      case '409':
        return new ClustersServiceConflictError(call, 409, 'CLUSTERS-MGMT-409', reason);
    }
  }

  private callContext(method: CsMethod, target: string): { endpoint: string; path: string } {
    const { method: verb, template } = HTTP[method];
    return { endpoint: `${verb} ${template}`, path: target ? `/clusters/${target.replace('/', '/node_pools/')}` : '/clusters' };
  }

  private mustHave(clusterId: string): ScriptedCluster {
    const c = this.state.clusters.get(clusterId);
    if (!c) throw new Error(`no cluster ${clusterId} in the script`);
    return c;
  }

  private existing(method: CsMethod, clusterId: string): ScriptedCluster {
    const c = this.state.clusters.get(clusterId);
    if (!c) throw this.httpError(method, clusterId, '404', `Cluster '${clusterId}' not found`);
    return c;
  }

  private existingNodePool(method: CsMethod, clusterId: string, nodePoolId: string): ScriptedNodePool {
    const np = this.existing(method, clusterId).nodePools.get(nodePoolId);
    if (!np)
      throw this.httpError(method, `${clusterId}/${nodePoolId}`, '404', `Node pool '${nodePoolId}' not found in cluster '${clusterId}'`);
    return np;
  }

  private existingExternalAuth(method: CsMethod, clusterId: string, externalAuthId: string): ScriptedExternalAuth {
    const ea = this.existing(method, clusterId).externalAuths.get(externalAuthId);
    if (!ea)
      throw this.httpError(
        method,
        `${clusterId}/${externalAuthId}`,
        '404',
        `External auth '${externalAuthId}' not found for cluster '${clusterId}'`,
      );
    return ea;
  }

  /** An external auth of a cluster being uninstalled is uninstalling too (as the simulator says). */
  private readExternalAuth(method: CsMethod, clusterId: string, externalAuthId: string): CsExternalAuth {
    const cluster = this.existing(method, clusterId);
    const ea = this.existingExternalAuth(method, clusterId, externalAuthId);
    return this.toExternalAuth(clusterId, cluster.state === 'uninstalling' ? { ...ea, state: 'uninstalling' } : ea);
  }

  private toExternalAuth(clusterId: string, ea: ScriptedExternalAuth): CsExternalAuth {
    return validate('csExternalAuth', {
      kind: 'ExternalAuth',
      ...structuredClone(ea.spec),
      id: ea.id,
      href: externalAuthHref(clusterId, ea.id),
      status: { state: { value: ea.state }, ...(ea.message === undefined ? {} : { message: ea.message }) },
    });
  }

  private toCluster(c: ScriptedCluster): CsCluster {
    return validate('csCluster', {
      kind: 'Cluster',
      id: c.id,
      href: clusterHref(c.id),
      name: c.name,
      azure: c.azure,
      ...(c.version === undefined ? {} : { version: { id: c.version } }),
      ...structuredClone(c.spec),
      status: statusFields(c),
    });
  }

  private toStatus(c: ScriptedCluster): CsClusterStatus {
    return validate('csClusterStatus', { kind: 'ClusterStatus', id: c.id, href: `${clusterHref(c.id)}/status`, ...statusFields(c) });
  }

  private toNodePool(clusterId: string, np: ScriptedNodePool, status?: CsNodePool['status']): CsNodePool {
    return validate('csNodePool', {
      kind: 'NodePool',
      id: np.id,
      href: nodePoolHref(clusterId, np.id),
      ...(np.replicas === undefined ? {} : { replicas: np.replicas }),
      ...(np.version === undefined ? {} : { version: { id: np.version } }),
      ...structuredClone(np.spec),
      ...(status && { status }),
    });
  }
}

function statusFields(
  c: ScriptedCluster,
): Pick<CsClusterStatus, 'state' | 'description' | 'provision_error_code' | 'provision_error_message'> {
  return {
    state: c.state,
    ...(c.description === undefined ? {} : { description: c.description }),
    ...(c.provision_error_code === undefined ? {} : { provision_error_code: c.provision_error_code }),
    ...(c.provision_error_message === undefined ? {} : { provision_error_message: c.provision_error_message }),
  };
}

/**
 * A PATCH taken into what CS holds, as the simulator does: objects merged field by field, arrays and
 * `labels` (a map whose removed keys must go) replaced whole.
 */
function merged<T extends object>(held: T | undefined, patch: object): T {
  const out: Record<string, unknown> = { ...held };
  for (const [key, value] of Object.entries(patch)) {
    const before = out[key];
    const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);
    out[key] = key !== 'labels' && isObject(value) && isObject(before) ? merged(before, value) : structuredClone(value);
  }
  return out as T;
}

/** As the real client: 404 on a status read is "not found". */
async function observed<S>(call: Promise<S>): Promise<CsObservation<S>> {
  try {
    return { found: true, status: await call };
  } catch (err) {
    if (isNotFound(err)) return { found: false };
    throw err;
  }
}

/** As the real client: 404 on a DELETE means already gone. */
async function gone(call: Promise<DeleteResult>): Promise<DeleteResult> {
  try {
    return await call;
  } catch (err) {
    if (isNotFound(err)) return { alreadyGone: true };
    throw err;
  }
}

/** A break-glass credential as CS answers it (no kubeconfig: the processors never read one). */
function credential(clusterId: string, id: string, status: string): CsBreakGlassCredential {
  return validate('csBreakGlassCredential', { kind: 'BreakGlassCredential', id, href: breakGlassCredentialHref(clusterId, id), status });
}

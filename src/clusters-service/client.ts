/**
 * Typed client of the Clusters Service calls opstream makes (prefix /api/aro_hcp/v1alpha1; break-glass
 * credentials under /api/clusters_mgmt/v1).
 * Every answer is validated against its schema. Retries: GET and DELETE only (see transport.ts);
 * `createCluster` is never retried blindly: after a timeout or lost connection the caller recovers
 * with `findClusterByAzureIdentity` (the cluster may exist).
 *
 * @example
 *   const cs = new ClustersServiceClient({ baseUrl: 'http://127.0.0.1:8000', token: () => readToken() });
 *   const status = await cs.observeClusterStatus(clusterId); // { found: false } on 404
 */
import type { CsObservation } from '../domain/cs-mapping';
import type { Logger } from '../logging/logger';
import type {
  CsBreakGlassCredential,
  CsCluster,
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
} from '../domain/types.generated';
import type { SchemaKind, Validated } from '../schemas/validator';
import { AmbiguousClusterMatchError, ClustersServiceBadResponseError, isNotFound } from './errors';
import { resolveOptions, type ClustersServiceClientOptions, type ResolvedClustersServiceOptions } from './options';
import {
  armNameSearch,
  azureIdentitySearch,
  matchesArmName,
  matchesAzureIdentity,
  type ArmResourceName,
  type AzureIdentity,
} from './search-expression';
import {
  BREAK_GLASS_TEMPLATES,
  breakGlassPath,
  CLUSTERS_MGMT_PREFIX,
  EXTERNAL_AUTH_TEMPLATES,
  externalAuthPath,
  isRevocationAlreadyRequested,
} from './subresources';
import { expectBody, Transport, type CallSpec, type HttpMethod } from './transport';

/** One page of a list, items validated. Pages are 1-based. */
export interface ListPage<T> {
  readonly kind: string;
  readonly page: number;
  readonly size: number;
  readonly total: number;
  readonly items: readonly T[];
}

export interface CallOptions {
  /** Cancels the call and its retries. */
  readonly signal?: AbortSignal;
}

export interface DeleteResult {
  /** The object was already gone (404): nothing to delete. */
  readonly alreadyGone: boolean;
}

const enc = encodeURIComponent;

export class ClustersServiceClient {
  private readonly options: ResolvedClustersServiceOptions;
  private readonly transport: Transport;
  /** Cancels every call of this client (see `scoped`). */
  private readonly fence?: AbortSignal;
  /** Sent with every call of this client (see `scoped`). */
  private readonly headers?: Readonly<Record<string, string>>;
  /** Where this client's retries are logged (see `scoped`). */
  private readonly callLogger?: Logger;

  constructor(options: ClustersServiceClientOptions) {
    this.options = resolveOptions(options);
    this.transport = new Transport(this.options);
  }

  /**
   * The same client (same transport, options and connections) whose every call is cancelled by
   * `signal`: a handling fenced by its lease stops talking to Clusters Service once the lease is gone.
   */
  withSignal(signal: AbortSignal): ClustersServiceClient {
    return this.scoped({ signal });
  }

  /**
   * The same client (same transport and connections) for one handling: its calls are cancelled by
   * `signal`, carry `headers` (the operation's correlation ids) and log retries to `logger` (whose
   * lines name the operation).
   */
  scoped(scope: { signal?: AbortSignal; headers?: Readonly<Record<string, string>>; logger?: Logger }): ClustersServiceClient {
    const client = Object.create(ClustersServiceClient.prototype) as ClustersServiceClient;
    return Object.assign(client, this, {
      fence: scope.signal ?? this.fence,
      headers: scope.headers ? { ...this.headers, ...scope.headers } : this.headers,
      callLogger: scope.logger ?? this.callLogger,
    });
  }

  // ── clusters ────────────────────────────────────────────────────────────────────────────────

  /**
   * `POST /clusters`. With `body.id` set, the answer must carry that id (else BadResponse).
   * Not retried: on an error with `outcomeUnknown` search by Azure identity before trying again.
   */
  async createCluster(body: CsClusterCreateRequest, opts: CallOptions = {}): Promise<CsCluster> {
    const spec = this.spec('POST', '/clusters', '/clusters', opts, body);
    const cluster = await this.typed('csCluster', spec);
    if (body.id !== undefined && cluster.id !== body.id) {
      throw new ClustersServiceBadResponseError(this.context(spec), `asked to create cluster "${body.id}" but got "${cluster.id}"`);
    }
    return cluster;
  }

  /** `GET /clusters/{id}`; 404 throws ClustersServiceNotFoundError. */
  getCluster(clusterId: string, opts: CallOptions = {}): Promise<CsCluster> {
    return this.typed('csCluster', this.spec('GET', '/clusters/{id}', `/clusters/${enc(clusterId)}`, opts));
  }

  /** `GET /clusters/{id}/status`; 404 throws. */
  getClusterStatus(clusterId: string, opts: CallOptions = {}): Promise<CsClusterStatus> {
    return this.typed('csClusterStatus', this.spec('GET', '/clusters/{id}/status', `/clusters/${enc(clusterId)}/status`, opts));
  }

  /** The cluster status, or `{found: false}` on 404: the input of `mapClusterStatus`. */
  observeClusterStatus(clusterId: string, opts: CallOptions = {}): Promise<CsObservation<CsClusterStatus>> {
    return observe(this.getClusterStatus(clusterId, opts));
  }

  /** Every inflight check of the cluster (all pages). */
  async getInflightChecks(clusterId: string, opts: CallOptions = {}): Promise<CsInflightCheck[]> {
    const path = `/clusters/${enc(clusterId)}/inflight_checks`;
    return this.collect('csInflightCheck', (page, size) =>
      this.spec('GET', '/clusters/{id}/inflight_checks', path, opts, undefined, { page, size }),
    );
  }

  /** `PATCH /clusters/{id}`; not retried. 409 while the cluster is not ready. */
  updateCluster(clusterId: string, patch: CsClusterUpdateRequest, opts: CallOptions = {}): Promise<CsCluster> {
    return this.typed('csCluster', this.spec('PATCH', '/clusters/{id}', `/clusters/${enc(clusterId)}`, opts, patch));
  }

  /** `DELETE /clusters/{id}` (asynchronous: later GETs answer 404). A 404 here means already gone. */
  deleteCluster(clusterId: string, opts: CallOptions = {}): Promise<DeleteResult> {
    return this.remove(this.spec('DELETE', '/clusters/{id}', `/clusters/${enc(clusterId)}`, opts));
  }

  /** One page of `GET /clusters?search=…`. Build `search` with search-expression.ts helpers. */
  async listClusters(query: { search?: string; page?: number; size?: number } = {}, opts: CallOptions = {}): Promise<ListPage<CsCluster>> {
    const params: Record<string, string | number> = { page: query.page ?? 1, size: query.size ?? this.options.pageSize };
    if (query.search !== undefined) params.search = query.search;
    return this.page('csCluster', this.spec('GET', '/clusters', '/clusters', opts, undefined, params));
  }

  /** Every cluster matching `search`, paging through the whole list. */
  searchClusters(search: string, opts: CallOptions = {}): Promise<CsCluster[]> {
    return this.collect('csCluster', (page, size) => this.spec('GET', '/clusters', '/clusters', opts, undefined, { search, page, size }));
  }

  /** Clusters created with this Azure identity, re-checked by exact comparison. */
  async findClustersByAzureIdentity(identity: AzureIdentity, opts: CallOptions = {}): Promise<CsCluster[]> {
    const found = await this.searchClusters(azureIdentitySearch(identity), opts);
    return found.filter((cluster) => matchesAzureIdentity(cluster, identity));
  }

  /**
   * Every cluster ARM knows by this name (subscription, resource group, name), whatever tenant or
   * managed resource group it was created with: what a Delete must leave nothing of.
   */
  async findClustersByArmName(name: ArmResourceName, opts: CallOptions = {}): Promise<CsCluster[]> {
    const found = await this.searchClusters(armNameSearch(name), opts);
    return found.filter((c) => matchesArmName(c, name));
  }

  /**
   * The one cluster with this Azure identity, or undefined. Several matches throw
   * AmbiguousClusterMatchError (retriable: do not act, try later).
   */
  async findClusterByAzureIdentity(identity: AzureIdentity, opts: CallOptions = {}): Promise<CsCluster | undefined> {
    const matches = await this.findClustersByAzureIdentity(identity, opts);
    if (matches.length > 1)
      throw new AmbiguousClusterMatchError(
        matches.map((c) => c.id),
        azureIdentitySearch(identity),
      );
    return matches[0];
  }

  // ── node pools ──────────────────────────────────────────────────────────────────────────────

  /** `POST /clusters/{id}/node_pools`; `body.id` is the node pool name. Not retried. */
  createNodePool(clusterId: string, body: CsNodePoolCreateRequest, opts: CallOptions = {}): Promise<CsNodePool> {
    return this.typed('csNodePool', this.spec('POST', '/clusters/{id}/node_pools', `/clusters/${enc(clusterId)}/node_pools`, opts, body));
  }

  getNodePool(clusterId: string, nodePoolId: string, opts: CallOptions = {}): Promise<CsNodePool> {
    return this.typed('csNodePool', this.spec('GET', '/clusters/{id}/node_pools/{nodePool}', nodePoolPath(clusterId, nodePoolId), opts));
  }

  getNodePoolStatus(clusterId: string, nodePoolId: string, opts: CallOptions = {}): Promise<CsNodePoolStatus> {
    const path = `${nodePoolPath(clusterId, nodePoolId)}/status`;
    return this.typed('csNodePoolStatus', this.spec('GET', '/clusters/{id}/node_pools/{nodePool}/status', path, opts));
  }

  /**
   * Every node pool of one cluster (`GET /clusters/{id}/node_pools`, all pages), each with its status:
   * Clusters Service lists node pools per cluster only, and its node pool list takes no `search`
   * (page and size only). 404 throws (the cluster is gone, and its node pools with it).
   */
  listNodePools(clusterId: string, opts: CallOptions = {}): Promise<CsNodePool[]> {
    const path = `/clusters/${enc(clusterId)}/node_pools`;
    return this.collect('csNodePool', (page, size) => this.spec('GET', '/clusters/{id}/node_pools', path, opts, undefined, { page, size }));
  }

  /** The node pool status, or `{found: false}` on 404: the input of `mapNodePoolStatus`. */
  observeNodePoolStatus(clusterId: string, nodePoolId: string, opts: CallOptions = {}): Promise<CsObservation<CsNodePoolStatus>> {
    return observe(this.getNodePoolStatus(clusterId, nodePoolId, opts));
  }

  /** The node pool (with its status, when CS embeds it), or `{found: false}` on 404. */
  observeNodePool(clusterId: string, nodePoolId: string, opts: CallOptions = {}): Promise<CsObservation<CsNodePool>> {
    return observe(this.getNodePool(clusterId, nodePoolId, opts));
  }

  /** `PATCH …/node_pools/{np}`; not retried. */
  updateNodePool(clusterId: string, nodePoolId: string, patch: CsNodePoolUpdateRequest, opts: CallOptions = {}): Promise<CsNodePool> {
    return this.typed(
      'csNodePool',
      this.spec('PATCH', '/clusters/{id}/node_pools/{nodePool}', nodePoolPath(clusterId, nodePoolId), opts, patch),
    );
  }

  deleteNodePool(clusterId: string, nodePoolId: string, opts: CallOptions = {}): Promise<DeleteResult> {
    return this.remove(this.spec('DELETE', '/clusters/{id}/node_pools/{nodePool}', nodePoolPath(clusterId, nodePoolId), opts));
  }

  // ── break-glass credentials (under /api/clusters_mgmt/v1) ──────────────────────────────────
  // A credential's kubeconfig is a secret: of an answer, only an OCM error's code and reason ever
  // reach an error message, a log line or a span (status, endpoint and path otherwise).

  /**
   * `POST …/break_glass_credentials`, body `{}` or `{id}`: an id chosen beforehand finds a credential
   * whose answer was lost (409 when one with that id exists). The answer must carry that id. Not retried.
   */
  async requestBreakGlassCredential(clusterId: string, body: { id?: string }, opts: CallOptions = {}): Promise<CsBreakGlassCredential> {
    const request = body.id === undefined ? {} : { id: body.id };
    const spec = this.credentialSpec('POST', BREAK_GLASS_TEMPLATES.collection, breakGlassPath(clusterId), opts, request);
    const credential = await this.typed('csBreakGlassCredential', spec);
    if (body.id !== undefined && credential.id !== body.id) {
      throw new ClustersServiceBadResponseError(this.context(spec), `asked for credential "${body.id}" but got "${credential.id}"`);
    }
    return credential;
  }

  /** `GET …/break_glass_credentials/{credential}` (the kubeconfig only once issued); 404 throws. */
  getBreakGlassCredential(clusterId: string, credentialId: string, opts: CallOptions = {}): Promise<CsBreakGlassCredential> {
    const spec = this.credentialSpec('GET', BREAK_GLASS_TEMPLATES.one, breakGlassPath(clusterId, credentialId), opts);
    return this.typed('csBreakGlassCredential', spec);
  }

  /** The credential, or `{found: false}` on 404. */
  observeBreakGlassCredential(
    clusterId: string,
    credentialId: string,
    opts: CallOptions = {},
  ): Promise<CsObservation<CsBreakGlassCredential>> {
    return observe(this.getBreakGlassCredential(clusterId, credentialId, opts));
  }

  /** Every credential of the cluster (all pages). */
  listBreakGlassCredentials(clusterId: string, opts: CallOptions = {}): Promise<CsBreakGlassCredential[]> {
    const path = breakGlassPath(clusterId);
    return this.collect('csBreakGlassCredential', (page, size) =>
      this.credentialSpec('GET', BREAK_GLASS_TEMPLATES.collection, path, opts, undefined, { page, size }),
    );
  }

  /**
   * `DELETE …/break_glass_credentials`: revokes every credential of the cluster (asynchronous: they go
   * `awaiting_revocation`, then `revoked`). A 400 saying a revocation was already requested is success.
   */
  async revokeBreakGlassCredentials(clusterId: string, opts: CallOptions = {}): Promise<void> {
    const spec = this.credentialSpec('DELETE', BREAK_GLASS_TEMPLATES.collection, breakGlassPath(clusterId), opts);
    try {
      // Not `bodyUnused`: the 400's reason is what tells a pending revocation apart.
      await this.transport.call(spec);
    } catch (err) {
      if (!isRevocationAlreadyRequested(err)) throw err;
    }
  }

  // ── external auths ──────────────────────────────────────────────────────────────────────────

  /** `POST …/external_auth_config/external_auths`; `body.id` is the lower-cased ARM name (409 if taken). Not retried. */
  async createExternalAuth(clusterId: string, body: CsExternalAuthCreateRequest, opts: CallOptions = {}): Promise<CsExternalAuth> {
    const spec = this.spec('POST', EXTERNAL_AUTH_TEMPLATES.collection, externalAuthPath(clusterId), opts, body);
    const externalAuth = await this.typed('csExternalAuth', spec);
    if (externalAuth.id !== body.id) {
      throw new ClustersServiceBadResponseError(
        this.context(spec),
        `asked to create external auth "${body.id}" but got "${externalAuth.id}"`,
      );
    }
    return externalAuth;
  }

  /** `GET …/external_auths/{externalAuth}`; 404 throws. */
  getExternalAuth(clusterId: string, externalAuthId: string, opts: CallOptions = {}): Promise<CsExternalAuth> {
    return this.typed('csExternalAuth', this.spec('GET', EXTERNAL_AUTH_TEMPLATES.one, externalAuthPath(clusterId, externalAuthId), opts));
  }

  /** The external auth (its `status` included), or `{found: false}` on 404. */
  observeExternalAuth(clusterId: string, externalAuthId: string, opts: CallOptions = {}): Promise<CsObservation<CsExternalAuth>> {
    return observe(this.getExternalAuth(clusterId, externalAuthId, opts));
  }

  /** Every external auth of the cluster (all pages; the list takes page and size only), each with its `status`; 404 throws. */
  listExternalAuths(clusterId: string, opts: CallOptions = {}): Promise<CsExternalAuth[]> {
    const path = externalAuthPath(clusterId);
    return this.collect('csExternalAuth', (page, size) =>
      this.spec('GET', EXTERNAL_AUTH_TEMPLATES.collection, path, opts, undefined, { page, size }),
    );
  }

  /** `PATCH …/external_auths/{externalAuth}`; not retried. */
  updateExternalAuth(
    clusterId: string,
    externalAuthId: string,
    patch: CsExternalAuthUpdateRequest,
    opts: CallOptions = {},
  ): Promise<CsExternalAuth> {
    const spec = this.spec('PATCH', EXTERNAL_AUTH_TEMPLATES.one, externalAuthPath(clusterId, externalAuthId), opts, patch);
    return this.typed('csExternalAuth', spec);
  }

  /** `DELETE …/external_auths/{externalAuth}` (asynchronous: later GETs answer 404). A 404 here means already gone. */
  deleteExternalAuth(clusterId: string, externalAuthId: string, opts: CallOptions = {}): Promise<DeleteResult> {
    return this.remove(this.spec('DELETE', EXTERNAL_AUTH_TEMPLATES.one, externalAuthPath(clusterId, externalAuthId), opts));
  }

  // ── plumbing ────────────────────────────────────────────────────────────────────────────────

  private spec(
    method: HttpMethod,
    template: string,
    path: string,
    opts: CallOptions,
    body?: unknown,
    query?: Record<string, string | number>,
  ): CallSpec {
    const signal = opts.signal && this.fence ? AbortSignal.any([opts.signal, this.fence]) : (opts.signal ?? this.fence);
    return { method, template, path, body, query, signal, headers: this.headers, logger: this.callLogger };
  }

  /** A call under clusters_mgmt whose answer may carry a kubeconfig. */
  private credentialSpec(...args: Parameters<ClustersServiceClient['spec']>): CallSpec {
    return { ...this.spec(...args), apiPrefix: CLUSTERS_MGMT_PREFIX, secretInBody: true };
  }

  private context(spec: CallSpec): { endpoint: string; path: string } {
    return { endpoint: `${spec.method} ${spec.template}`, path: spec.path };
  }

  private async typed<K extends SchemaKind>(kind: K, spec: CallSpec): Promise<Validated<K>> {
    return expectBody(kind, await this.transport.call(spec), this.context(spec));
  }

  private async remove(spec: CallSpec): Promise<DeleteResult> {
    try {
      await this.transport.call({ ...spec, bodyUnused: true });
      return { alreadyGone: false };
    } catch (err) {
      if (isNotFound(err)) return { alreadyGone: true };
      throw err;
    }
  }

  private async page<K extends SchemaKind>(itemKind: K, spec: CallSpec): Promise<ListPage<Validated<K>>> {
    const answer = await this.transport.call(spec);
    const list = expectBody('csListPage', answer, this.context(spec));
    const items = list.items.map((item) => expectBody(itemKind, { status: answer.status, json: item }, this.context(spec)));
    return { kind: list.kind, page: list.page, size: list.size, total: list.total, items };
  }

  /** Pages 1, 2, … until `total` items were seen or a page comes back short. */
  private async collect<K extends SchemaKind>(itemKind: K, specFor: (page: number, size: number) => CallSpec): Promise<Validated<K>[]> {
    const size = this.options.pageSize;
    const out: Validated<K>[] = [];
    for (let page = 1; ; page++) {
      const result = await this.page(itemKind, specFor(page, size));
      out.push(...result.items);
      if (result.items.length < size || out.length >= result.total) return out;
    }
  }
}

function nodePoolPath(clusterId: string, nodePoolId: string): string {
  return `/clusters/${enc(clusterId)}/node_pools/${enc(nodePoolId)}`;
}

async function observe<S>(call: Promise<S>): Promise<CsObservation<S>> {
  try {
    return { found: true, status: await call };
  } catch (err) {
    if (isNotFound(err)) return { found: false };
    throw err;
  }
}

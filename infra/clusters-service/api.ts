/**
 * The Clusters Service calls, as a route table: prefix + method + path template → handler. The
 * template (without its /api/aro_hcp/v1alpha1 or /api/clusters_mgmt/v1 prefix) is also the endpoint
 * name used by counters and faults.
 */
import { credentialView, type BreakGlassCredentials } from './break-glass';
import { externalAuthView, type ExternalAuths } from './external-auths';
import { API_PREFIX, CLUSTERS_MGMT_PREFIX, OcmError } from './ocm-errors';
import { parseSearchAlternatives, SearchSyntaxError, type SearchTerm } from './search';
import type { Json, SimulatorStore } from './store';
import { checkBody } from './validation';
import { clusterStatusView, clusterView, inflightChecksView, listView, nodePoolStatusView, nodePoolView } from './views';

export interface ApiRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Parsed JSON body (POST/PATCH), undefined otherwise. */
  readonly body: unknown;
}

/** What the handlers act on. */
export interface SimulatorState {
  readonly store: SimulatorStore;
  readonly credentials: BreakGlassCredentials;
  readonly externalAuths: ExternalAuths;
  readonly now: () => number;
}

export interface ApiResponse {
  readonly status: number;
  readonly body?: Json;
}

interface Route {
  /** API_PREFIX, or CLUSTERS_MGMT_PREFIX for break-glass credentials. */
  readonly prefix: string;
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly hasBody: boolean;
  readonly handle: (state: SimulatorState, req: ApiRequest) => ApiResponse;
}

function route(method: string, template: string, handle: Route['handle'], prefix = API_PREFIX): Route {
  const names: string[] = [];
  const source = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { prefix, method, template, pattern: new RegExp(`^${source}$`), names, hasBody: method === 'POST' || method === 'PATCH', handle };
}

function intParam(query: URLSearchParams, name: string, fallback: number, min: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new OcmError(400, `parameter '${name}' must be an integer >= ${min}, got '${raw}'`);
  return value;
}

function pageOf(kind: string, items: Json[], query: URLSearchParams): ApiResponse {
  return { status: 200, body: listView(kind, items, intParam(query, 'page', 1, 1), intParam(query, 'size', 100, 0)) };
}

/** The `search` parameter parsed, every field among `searchable`; a 400 otherwise. */
function parsedSearch(req: ApiRequest, searchable: ReadonlySet<string>): SearchTerm[][] {
  let alternatives;
  try {
    alternatives = parseSearchAlternatives(req.query.get('search') ?? '');
  } catch (err) {
    if (err instanceof SearchSyntaxError) throw new OcmError(400, `invalid search expression: ${err.message}`);
    throw err;
  }
  const unknown = alternatives.flat().find((t) => !searchable.has(t.field));
  if (unknown) throw new OcmError(400, `invalid search expression: unknown field '${unknown.field}'`);
  return alternatives;
}

function listClusters({ store }: SimulatorState, req: ApiRequest): ApiResponse {
  const alternatives = parsedSearch(req, SEARCHABLE);
  return pageOf(
    'ClusterList',
    store.searchClusters(alternatives).map((c) => clusterView(c, store.clusterPhase(c))),
    req.query,
  );
}

/**
 * `GET /clusters/{id}/node_pools?page=&size=`: the cluster's live node pools, whole. The API model's
 * node pool list takes page and size only: a `search` is refused (400) rather than ignored, so a
 * caller cannot come to rely on a filter the real service does not apply.
 */
function listNodePools({ store }: SimulatorState, req: ApiRequest): ApiResponse {
  if (req.query.has('search')) throw new OcmError(400, "the node pool list takes no 'search' parameter (page and size only)");
  const cluster = req.params.id as string;
  return pageOf(
    'NodePoolList',
    store.nodePoolsOf(cluster).map((np) => nodePoolView(np, store.nodePoolPhase(np))),
    req.query,
  );
}

const SEARCHABLE = new Set([
  'id',
  'name',
  'region.id',
  'version.id',
  'azure.subscription_id',
  'azure.resource_group_name',
  'azure.resource_name',
  'azure.tenant_id',
  'azure.managed_resource_group_name',
]);

export const ROUTES: readonly Route[] = [
  route('POST', '/clusters', ({ store }, req) => {
    const record = store.createCluster(checkBody('clusterCreate', req.body));
    return { status: 201, body: clusterView(record, store.clusterPhase(record)) };
  }),
  route('GET', '/clusters', listClusters),
  route('GET', '/clusters/{id}', ({ store }, { params }) => {
    const record = store.getCluster(params.id as string);
    return { status: 200, body: clusterView(record, store.clusterPhase(record)) };
  }),
  route('PATCH', '/clusters/{id}', ({ store }, { params, body }) => {
    const record = store.updateCluster(params.id as string, checkBody('clusterUpdate', body));
    return { status: 200, body: clusterView(record, store.clusterPhase(record)) };
  }),
  route('DELETE', '/clusters/{id}', ({ store }, { params }) => {
    store.deleteCluster(params.id as string);
    return { status: 204 };
  }),
  route('GET', '/clusters/{id}/status', ({ store }, { params }) => {
    const record = store.getCluster(params.id as string);
    return { status: 200, body: clusterStatusView(record, store.clusterPhase(record)) };
  }),
  route('GET', '/clusters/{id}/inflight_checks', ({ store }, { params }) => {
    const record = store.getCluster(params.id as string);
    return { status: 200, body: inflightChecksView(record, store.clusterPhase(record)) };
  }),
  route('POST', '/clusters/{id}/node_pools', ({ store }, { params, body }) => {
    const record = store.createNodePool(params.id as string, checkBody('nodePoolCreate', body));
    return { status: 201, body: nodePoolView(record, store.nodePoolPhase(record)) };
  }),
  route('GET', '/clusters/{id}/node_pools', listNodePools),
  route('GET', '/clusters/{id}/node_pools/{nodePool}', ({ store }, { params }) => {
    const record = store.getNodePool(params.id as string, params.nodePool as string);
    return { status: 200, body: nodePoolView(record, store.nodePoolPhase(record)) };
  }),
  route('PATCH', '/clusters/{id}/node_pools/{nodePool}', ({ store }, { params, body }) => {
    const record = store.updateNodePool(params.id as string, params.nodePool as string, checkBody('nodePoolUpdate', body));
    return { status: 200, body: nodePoolView(record, store.nodePoolPhase(record)) };
  }),
  route('DELETE', '/clusters/{id}/node_pools/{nodePool}', ({ store }, { params }) => {
    store.deleteNodePool(params.id as string, params.nodePool as string);
    return { status: 204 };
  }),
  route('GET', '/clusters/{id}/node_pools/{nodePool}/status', ({ store }, { params }) => {
    const record = store.getNodePool(params.id as string, params.nodePool as string);
    return { status: 200, body: nodePoolStatusView(record, store.nodePoolPhase(record)) };
  }),
  // Break-glass credentials: under /api/clusters_mgmt/v1, as in Clusters Service.
  route(
    'POST',
    '/clusters/{id}/break_glass_credentials',
    ({ credentials, now }, { params, body }) => {
      const record = credentials.request(params.id as string, checkBody('credentialRequest', body ?? {}));
      return { status: 201, body: credentialView(record, now(), { withKubeconfig: false }) };
    },
    CLUSTERS_MGMT_PREFIX,
  ),
  route(
    'GET',
    '/clusters/{id}/break_glass_credentials',
    ({ credentials, now }, { params, query }) => {
      const items = credentials.list(params.id as string).map((c) => credentialView(c, now(), { withKubeconfig: false }));
      return pageOf('BreakGlassCredentialList', items, query);
    },
    CLUSTERS_MGMT_PREFIX,
  ),
  route(
    'DELETE',
    '/clusters/{id}/break_glass_credentials',
    ({ credentials }, { params }) => {
      credentials.revokeAll(params.id as string);
      return { status: 204 };
    },
    CLUSTERS_MGMT_PREFIX,
  ),
  route(
    'GET',
    '/clusters/{id}/break_glass_credentials/{credential}',
    ({ credentials, now }, { params }) => {
      const record = credentials.get(params.id as string, params.credential as string);
      return { status: 200, body: credentialView(record, now(), { withKubeconfig: true }) };
    },
    CLUSTERS_MGMT_PREFIX,
  ),
  route('POST', '/clusters/{id}/external_auth_config/external_auths', ({ externalAuths, now }, { params, body }) => {
    const record = externalAuths.create(params.id as string, checkBody('externalAuthCreate', body));
    return { status: 201, body: externalAuthView(record, now()) };
  }),
  route('GET', '/clusters/{id}/external_auth_config/external_auths', ({ externalAuths, now }, { params, query }) => {
    return pageOf(
      'ExternalAuthList',
      externalAuths.list(params.id as string).map((r) => externalAuthView(r, now())),
      query,
    );
  }),
  route('GET', '/clusters/{id}/external_auth_config/external_auths/{externalAuth}', ({ externalAuths, now }, { params }) => {
    return { status: 200, body: externalAuthView(externalAuths.get(params.id as string, params.externalAuth as string), now()) };
  }),
  route('PATCH', '/clusters/{id}/external_auth_config/external_auths/{externalAuth}', ({ externalAuths, now }, { params, body }) => {
    const patch = checkBody('externalAuthUpdate', body);
    return { status: 200, body: externalAuthView(externalAuths.update(params.id as string, params.externalAuth as string, patch), now()) };
  }),
  route('DELETE', '/clusters/{id}/external_auth_config/external_auths/{externalAuth}', ({ externalAuths }, { params }) => {
    externalAuths.delete(params.id as string, params.externalAuth as string);
    return { status: 204 };
  }),
];

export interface RouteMatch {
  /** `METHOD /template`, the name counters and faults use. */
  readonly endpoint: string;
  readonly route?: Route;
  readonly params: Record<string, string>;
  /** The path exists with another method. */
  readonly methodNotAllowed: boolean;
}

/** The API prefix `path` starts with, and the rest; undefined when it is no API path. */
export function splitApiPath(path: string): { prefix: string; rest: string } | undefined {
  const prefix = [API_PREFIX, CLUSTERS_MGMT_PREFIX].find((p) => path.startsWith(`${p}/`));
  return prefix === undefined ? undefined : { prefix, rest: path.slice(prefix.length) };
}

/** Finds the route of `path` (already stripped of its API prefix, `prefix`). */
export function matchRoute(method: string, prefix: string, path: string): RouteMatch {
  let methodNotAllowed = false;
  for (const r of ROUTES) {
    if (r.prefix !== prefix) continue;
    const m = r.pattern.exec(path);
    if (!m) continue;
    if (r.method !== method) {
      methodNotAllowed = true;
      continue;
    }
    const params: Record<string, string> = {};
    r.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1] as string)));
    return { endpoint: `${method} ${r.template}`, route: r, params, methodNotAllowed: false };
  }
  return { endpoint: `${method} (unknown)`, params: {}, methodNotAllowed };
}

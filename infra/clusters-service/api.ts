/**
 * The Clusters Service calls, as a route table: method + path template → handler. The template
 * (without the /api/aro_hcp/v1alpha1 prefix) is also the endpoint name used by counters and faults.
 */
import { OcmError } from './ocm-errors';
import { parseSearchAlternatives, SearchSyntaxError } from './search';
import type { Json, SimulatorStore } from './store';
import { checkBody } from './validation';
import { clusterStatusView, clusterView, inflightChecksView, listView, nodePoolStatusView, nodePoolView } from './views';

export interface ApiRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Parsed JSON body (POST/PATCH), undefined otherwise. */
  readonly body: unknown;
}

export interface ApiResponse {
  readonly status: number;
  readonly body?: Json;
}

interface Route {
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly hasBody: boolean;
  readonly handle: (store: SimulatorStore, req: ApiRequest) => ApiResponse;
}

function route(method: string, template: string, handle: Route['handle']): Route {
  const names: string[] = [];
  const source = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { method, template, pattern: new RegExp(`^${source}$`), names, hasBody: method === 'POST' || method === 'PATCH', handle };
}

function intParam(query: URLSearchParams, name: string, fallback: number, min: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new OcmError(400, `parameter '${name}' must be an integer >= ${min}, got '${raw}'`);
  return value;
}

function listClusters(store: SimulatorStore, req: ApiRequest): ApiResponse {
  const page = intParam(req.query, 'page', 1, 1);
  const size = intParam(req.query, 'size', 100, 0);
  let alternatives;
  try {
    alternatives = parseSearchAlternatives(req.query.get('search') ?? '');
  } catch (err) {
    if (err instanceof SearchSyntaxError) throw new OcmError(400, `invalid search expression: ${err.message}`);
    throw err;
  }
  const unknown = alternatives.flat().find((t) => !SEARCHABLE.has(t.field));
  if (unknown) throw new OcmError(400, `invalid search expression: unknown field '${unknown.field}'`);
  const items = store.searchClusters(alternatives).map((c) => clusterView(c, store.clusterPhase(c)));
  return { status: 200, body: listView('ClusterList', items, page, size) };
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
  route('POST', '/clusters', (store, req) => {
    const record = store.createCluster(checkBody('clusterCreate', req.body));
    return { status: 201, body: clusterView(record, store.clusterPhase(record)) };
  }),
  route('GET', '/clusters', listClusters),
  route('GET', '/clusters/{id}', (store, { params }) => {
    const record = store.getCluster(params.id as string);
    return { status: 200, body: clusterView(record, store.clusterPhase(record)) };
  }),
  route('PATCH', '/clusters/{id}', (store, { params, body }) => {
    const record = store.updateCluster(params.id as string, checkBody('clusterUpdate', body));
    return { status: 200, body: clusterView(record, store.clusterPhase(record)) };
  }),
  route('DELETE', '/clusters/{id}', (store, { params }) => {
    store.deleteCluster(params.id as string);
    return { status: 204 };
  }),
  route('GET', '/clusters/{id}/status', (store, { params }) => {
    const record = store.getCluster(params.id as string);
    return { status: 200, body: clusterStatusView(record, store.clusterPhase(record)) };
  }),
  route('GET', '/clusters/{id}/inflight_checks', (store, { params }) => {
    const record = store.getCluster(params.id as string);
    return { status: 200, body: inflightChecksView(record, store.clusterPhase(record)) };
  }),
  route('POST', '/clusters/{id}/node_pools', (store, { params, body }) => {
    const record = store.createNodePool(params.id as string, checkBody('nodePoolCreate', body));
    return { status: 201, body: nodePoolView(record) };
  }),
  route('GET', '/clusters/{id}/node_pools/{nodePool}', (store, { params }) => {
    return { status: 200, body: nodePoolView(store.getNodePool(params.id as string, params.nodePool as string)) };
  }),
  route('PATCH', '/clusters/{id}/node_pools/{nodePool}', (store, { params, body }) => {
    const record = store.updateNodePool(params.id as string, params.nodePool as string, checkBody('nodePoolUpdate', body));
    return { status: 200, body: nodePoolView(record) };
  }),
  route('DELETE', '/clusters/{id}/node_pools/{nodePool}', (store, { params }) => {
    store.deleteNodePool(params.id as string, params.nodePool as string);
    return { status: 204 };
  }),
  route('GET', '/clusters/{id}/node_pools/{nodePool}/status', (store, { params }) => {
    const record = store.getNodePool(params.id as string, params.nodePool as string);
    return { status: 200, body: nodePoolStatusView(record, store.nodePoolPhase(record)) };
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

/** Finds the route of `path` (already stripped of the API prefix). */
export function matchRoute(method: string, path: string): RouteMatch {
  let methodNotAllowed = false;
  for (const r of ROUTES) {
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

/**
 * Every Clusters Service call a system made (the simulator's `onCall`), attributed to the ARM
 * resource it concerns, so that per operation the harness knows
 * - its first CS call (the reaction: the backend picked the operation up and acts on it), and
 * - the call that started its CS work (POST / PATCH / DELETE), from which the instant CS reached the
 *   final state is computed with the object's durations (known: the harness drew them).
 *
 * Resource keys are `sub/rg/cluster[/nodepool]`, lower-cased. Calls name a resource by search
 * expression (`azure.resource_name = '…'`), create body (`azure.*`, `id`) or CS id in the path.
 */
import type { ApiCallRecord } from '@opstream/clusters-service-simulator';
import { parseArmResourceId } from '../../src/domain/ids';

type CallAction = 'search' | 'create' | 'update' | 'delete' | 'read';

export interface LoggedCall {
  readonly endpoint: string;
  readonly status: number | 'dropped';
  readonly at: number;
  readonly key: string | undefined;
  readonly action: CallAction;
  /** Resource keys of a shared status read (`search=id in (…)`): every cluster it listed, asked for or riding along. */
  readonly keys?: readonly string[];
}

export function resourceKeyOf(armId: string): string {
  const arm = parseArmResourceId(armId);
  const cluster = `${arm.partitionKey}/${arm.resourceGroupName}/${arm.clusterName}`.toLowerCase();
  return arm.nodePoolName === undefined ? cluster : `${cluster}/${arm.nodePoolName.toLowerCase()}`;
}

function searchTerms(search: string): Map<string, string> {
  const terms = new Map<string, string>();
  for (const m of search.matchAll(/azure\.(\w+)\s*=\s*'((?:[^']|'')*)'/g)) terms.set(m[1], m[2].replace(/''/g, "'"));
  return terms;
}

/** Cluster ids of an `id in ('a', 'b')` search (the shared status read), if it is one. */
function idListOf(search: string): string[] | undefined {
  const list = /^id in \((.*)\)$/.exec(search.trim());
  return list ? [...list[1].matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1].replace(/''/g, "'")) : undefined;
}

function azureKey(azure: unknown): string | undefined {
  if (azure === null || typeof azure !== 'object') return undefined;
  const a = azure as Record<string, unknown>;
  if (typeof a.subscription_id !== 'string' || typeof a.resource_group_name !== 'string' || typeof a.resource_name !== 'string')
    return undefined;
  return `${a.subscription_id}/${a.resource_group_name}/${a.resource_name}`.toLowerCase();
}

function actionOf(method: string, isCollection: boolean): CallAction {
  if (method === 'POST') return 'create';
  if (method === 'PATCH') return 'update';
  if (method === 'DELETE') return 'delete';
  return isCollection ? 'search' : 'read';
}

export class CallLog {
  readonly calls: LoggedCall[] = [];
  private readonly byKey = new Map<string, LoggedCall[]>();
  /** CS cluster id → resource key, learnt from create bodies. */
  private readonly clusterKeys = new Map<string, string>();
  /** CS cluster id → the keys of the node pools created in it. */
  private readonly nodePoolKeys = new Map<string, Set<string>>();

  private nodePoolsOf(clusterId: string): Set<string> {
    const keys = this.nodePoolKeys.get(clusterId) ?? new Set<string>();
    this.nodePoolKeys.set(clusterId, keys);
    return keys;
  }

  record(call: ApiCallRecord): void {
    const [method] = call.endpoint.split(' ');
    const segments = call.path.split('/').filter(Boolean); // clusters, {id}, node_pools, {np}, status…
    let key: string | undefined;
    let action: CallAction;
    let ids: string[] | undefined;
    let nodePoolKeys: string[] | undefined;
    const body = (call.body ?? {}) as Record<string, unknown>;
    if (segments.length === 1) {
      action = actionOf(method, true);
      if (method === 'POST') {
        key = azureKey(body.azure);
        if (key && typeof body.id === 'string') this.clusterKeys.set(body.id, key);
      } else {
        const t = searchTerms(call.query.get('search') ?? '');
        const sub = t.get('subscription_id');
        const rg = t.get('resource_group_name');
        const name = t.get('resource_name');
        key = sub && rg && name ? `${sub}/${rg}/${name}`.toLowerCase() : undefined;
        ids = idListOf(call.query.get('search') ?? '');
      }
    } else {
      const cluster = this.clusterKeys.get(segments[1]);
      if (segments[2] === 'node_pools') {
        const np = segments.length >= 4 ? segments[3] : typeof body.id === 'string' ? body.id : undefined;
        key = cluster && np ? `${cluster}/${np.toLowerCase()}` : undefined;
        action = actionOf(method, segments.length === 3 && method === 'GET');
        if (key && method === 'POST') this.nodePoolsOf(segments[1]).add(key);
        // A shared read of one cluster's node pools (the whole list) serves each node pool of it.
        if (action === 'search') nodePoolKeys = [...this.nodePoolsOf(segments[1])];
      } else {
        key = cluster;
        action = actionOf(method, false);
      }
    }
    const keys = nodePoolKeys ?? ids?.map((id) => this.clusterKeys.get(id)).filter((k): k is string => k !== undefined);
    const logged: LoggedCall = {
      endpoint: call.endpoint,
      status: call.status,
      at: call.receivedAt,
      key,
      action,
      ...(keys ? { keys } : {}),
    };
    this.calls.push(logged);
    if (key) {
      const list = this.byKey.get(key) ?? [];
      list.push(logged);
      this.byKey.set(key, list);
    }
  }

  /** The first call about `key` at or after `from` (and before `to`). */
  first(key: string, from: number, to = Infinity, filter: (c: LoggedCall) => boolean = () => true): LoggedCall | undefined {
    return this.byKey.get(key)?.find((c) => c.at >= from && c.at <= to && filter(c));
  }

  /** Calls about `key` within [from, to]. */
  between(key: string, from: number, to: number): LoggedCall[] {
    return (this.byKey.get(key) ?? []).filter((c) => c.at >= from && c.at <= to);
  }

  /** Calls in [from, to], attributed or not. */
  countBetween(from: number, to: number): number {
    return this.calls.filter((c) => c.at >= from && c.at <= to).length;
  }

  clear(): void {
    this.calls.length = 0;
    this.byKey.clear();
  }
}

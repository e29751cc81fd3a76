/**
 * The Clusters Service simulator for a chaos run: in this process (so that every API call is seen
 * through its `onCall` hook), reached by opstream through a TcpGate that can take it down, and
 * driven through its documented HTTP admin API (`/_admin/faults`, `/_admin/clusters`,
 * `/_admin/counters`; infra/clusters-service/README.md).
 */
import {
  startClustersServiceSimulator,
  type ActiveFault,
  type ApiCallRecord,
  type CallCount,
  type ClustersServiceSimulator,
  type FaultRule,
} from '@opstream/clusters-service-simulator';
import { CS_DURATIONS } from './profile';
import { TcpGate } from './tcp-gate';

export interface LiveCluster {
  readonly id: string;
  readonly name: string;
  readonly state: string;
  readonly azure: { subscription_id?: string; resource_group_name?: string; resource_name?: string };
  readonly nodePools: ReadonlyArray<{ readonly id: string; readonly state: string }>;
}

/** The calls the figures need: deletes (with when) and searches refused as unparsable. */
export interface NotableCall {
  readonly endpoint: string;
  readonly path: string;
  readonly status: number | 'dropped';
  readonly at: number;
  readonly search?: string;
}

/** `subscription/resource group/name`, lower-cased: one live cluster per key is the rule. */
export function identityKey(azure: LiveCluster['azure']): string {
  return `${azure.subscription_id ?? '?'}/${azure.resource_group_name ?? '?'}/${azure.resource_name ?? '?'}`.toLowerCase();
}

const CLUSTER_IN_PATH = /\/clusters\/([^/?]+)/;

export class ClustersService {
  private constructor(
    private readonly sim: ClustersServiceSimulator,
    readonly gate: TcpGate,
    readonly notable: readonly NotableCall[],
    /** CS cluster id → identity key, from every create body seen (the create may have been answered or not). */
    readonly createdIdentity: ReadonlyMap<string, string>,
    /** `identity key endpoint` → when CS first received that change call for the cluster (a reaction ends there). */
    private readonly firstChangeAt: ReadonlyMap<string, number>,
    /** Identity key → break-glass credentials CS created for that cluster (201s: one per RequestCredential, whatever crashed). */
    readonly credentialsCreated: ReadonlyMap<string, number>,
  ) {}

  /** When CS first received `endpoint` (a POST, PATCH or DELETE) about the cluster with this identity key. */
  firstChangeCallAt(endpoint: string, identity: string): number | undefined {
    return this.firstChangeAt.get(`${identity} ${endpoint}`);
  }

  static async start(gatePort: number): Promise<ClustersService> {
    const notable: NotableCall[] = [];
    const created = new Map<string, string>();
    const firstChangeAt = new Map<string, number>();
    const credentials = new Map<string, number>();
    const sim = await startClustersServiceSimulator({
      port: 0,
      durations: CS_DURATIONS,
      onCall: (c: ApiCallRecord) => {
        const search = c.query.get('search') ?? undefined;
        const body = (c.body ?? {}) as { id?: unknown; azure?: LiveCluster['azure'] };
        if (c.endpoint === 'POST /clusters' && typeof body.id === 'string' && body.azure) created.set(body.id, identityKey(body.azure));
        if (!c.endpoint.startsWith('GET ')) {
          const identity =
            c.endpoint === 'POST /clusters' ? body.azure && identityKey(body.azure) : created.get(CLUSTER_IN_PATH.exec(c.path)?.[1] ?? '');
          const key = `${identity ?? '?'} ${c.endpoint}`;
          if (identity !== undefined && !firstChangeAt.has(key)) firstChangeAt.set(key, c.receivedAt);
          if (identity !== undefined && c.endpoint === 'POST /clusters/{id}/break_glass_credentials' && c.status === 201)
            credentials.set(identity, (credentials.get(identity) ?? 0) + 1);
        }
        if (c.endpoint.startsWith('DELETE ') || (c.endpoint === 'GET /clusters' && c.status === 400)) {
          notable.push({
            endpoint: c.endpoint,
            path: c.path,
            status: c.status,
            at: c.receivedAt,
            ...(search === undefined ? {} : { search }),
          });
        }
      },
    });
    const gate = await TcpGate.open(gatePort, sim.port);
    return new ClustersService(sim, gate, notable, created, firstChangeAt, credentials);
  }

  /** The URL opstream is given (through the gate). */
  get url(): string {
    return this.gate.url;
  }

  private async admin(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.sim.url}/_admin/${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.sim.adminToken}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`CS admin ${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  }

  async addFault(rule: FaultRule): Promise<string> {
    return ((await this.admin('POST', 'faults', rule)) as { id: string }).id;
  }

  /** The live fault rules, with how many calls each affected. */
  async faults(): Promise<ActiveFault[]> {
    return (await this.admin('GET', 'faults')) as ActiveFault[];
  }

  async clearFaults(): Promise<void> {
    await this.admin('DELETE', 'faults');
  }

  async clusters(): Promise<LiveCluster[]> {
    return (await this.admin('GET', 'clusters')) as LiveCluster[];
  }

  async counters(): Promise<CallCount[]> {
    return (await this.admin('GET', 'counters')) as CallCount[];
  }

  async close(): Promise<void> {
    await this.gate.down();
    await this.sim.close();
  }
}

/** Sum of the counters matching `endpoint` (all if undefined) and `status` (all if undefined). */
export function countCalls(counts: readonly CallCount[], endpoint?: string, status?: (s: number | 'dropped') => boolean): number {
  return counts
    .filter((c) => (endpoint === undefined || c.endpoint === endpoint) && (status === undefined || status(c.status)))
    .reduce((s, c) => s + c.count, 0);
}

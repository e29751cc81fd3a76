/**
 * The simulator's in-memory Clusters Service: clusters and node pools with their lifecycles.
 * State is derived at read time from the injected clock (see lifecycle.ts); objects whose
 * deletion finished are dropped the first time they are looked at.
 */
import { randomBytes } from 'node:crypto';
import type { CredentialRecord } from './break-glass';
import type { ExternalAuthRecord } from './external-auths';
import { newLifecycle, phaseAt, startDeletion, startUpdate, type Durations, type Lifecycle, type Phase } from './lifecycle';
import { mergePatch } from './merge-patch';
import { OcmError } from './ocm-errors';
import { termMatches, type SearchTerm } from './search';

export type Json = Record<string, unknown>;

export interface InflightCheckSpec {
  name: string;
  status: 'passed' | 'failed';
  /** Becomes `details.error` of a failed check. */
  error?: string;
}

/** What a cluster in `error` reports. */
export interface ProvisionError {
  /** `provision_error_code`, e.g. OCM3001, or OCM4001 for failed inflight checks. */
  code: string;
  /** `provision_error_message`. */
  message?: string;
  /** `description` of the status. */
  description?: string;
  /** Items of `inflight_checks` (meaningful with OCM4001). */
  inflightChecks?: InflightCheckSpec[];
}

/** Clusters created while a rule matches end in `error` after installing. */
export interface ProvisionFailureRule extends ProvisionError {
  /** Only clusters with this `name`; absent = any cluster. */
  clusterName?: string;
  /** Apply to this many creates, then the rule is removed. @defaultValue unlimited */
  times?: number;
}

export interface ClusterRecord {
  readonly id: string;
  readonly seq: number;
  body: Json;
  /** The last PATCH, taken into `body` once its update phase is over (CS applies a change when its update finishes). */
  pendingPatch?: Json;
  readonly lifecycle: Lifecycle;
  error?: ProvisionError;
  readonly nodePools: Map<string, NodePoolRecord>;
  /** Its break-glass credentials (break-glass.ts): they go with the cluster. */
  readonly credentials: Map<string, CredentialRecord>;
  /** Its external auths (external-auths.ts): they go with the cluster. */
  readonly externalAuths: Map<string, ExternalAuthRecord>;
}

export interface NodePoolRecord {
  readonly id: string;
  readonly clusterId: string;
  body: Json;
  /** The last PATCH, taken into `body` once its update phase is over. */
  pendingPatch?: Json;
  readonly lifecycle: Lifecycle;
  errorMessage?: string;
  recoverable?: boolean;
}

/** base32-ish lower-case id of 32 characters, like CS cluster ids. */
export function newClusterId(): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuv';
  return Array.from(randomBytes(32), (b) => alphabet[b & 31]).join('');
}

/** The object whose phase durations are being fixed (see `durationsFor`). */
export interface DurationTarget {
  readonly kind: 'cluster' | 'nodePool';
  readonly action: 'create' | 'update' | 'delete';
  readonly clusterId: string;
  /** The cluster's `name`. */
  readonly clusterName: string;
  /** Present for a node pool. */
  readonly nodePoolId?: string;
}

/** Durations for one object and action, over the simulator's own; undefined = the simulator's. */
export type DurationsFor = (target: DurationTarget) => Partial<Durations> | undefined;

export class SimulatorStore {
  private readonly clusters = new Map<string, ClusterRecord>();
  private failureRules: Array<ProvisionFailureRule & { applied: number }> = [];
  private seq = 0;

  /** Told after every change made through the store (not the phase changes time brings): the state-change events follow objects from there. */
  onTouched?: (clusterId: string, nodePoolId?: string) => void;

  constructor(
    private readonly now: () => number,
    private readonly durations: () => Durations,
    private readonly durationsFor?: DurationsFor,
  ) {}

  /**
   * The state of a cluster or node pool at `at` (default now), as its status call would report it then;
   * `gone` when it does not exist. Reads only: forgets nothing.
   */
  stateAt(clusterId: string, nodePoolId?: string, at: number = this.now()): Phase | 'recoverable_error' {
    const cluster = this.clusters.get(clusterId);
    if (!cluster) return 'gone';
    const clusterPhase = phaseAt(cluster.lifecycle, at);
    if (nodePoolId === undefined || clusterPhase === 'uninstalling' || clusterPhase === 'gone') return clusterPhase;
    const nodePool = cluster.nodePools.get(nodePoolId);
    if (!nodePool) return 'gone';
    const phase = phaseAt(nodePool.lifecycle, at);
    return phase === 'error' && nodePool.recoverable ? 'recoverable_error' : phase;
  }

  /** The lifecycles that decide the phase of an object (a node pool's cluster's too), or none when it is gone. */
  lifecyclesOf(clusterId: string, nodePoolId?: string): Lifecycle[] {
    const cluster = this.clusters.get(clusterId);
    if (!cluster) return [];
    if (nodePoolId === undefined) return [cluster.lifecycle];
    const nodePool = cluster.nodePools.get(nodePoolId);
    return nodePool ? [nodePool.lifecycle, cluster.lifecycle] : [];
  }

  /** Ids of the node pools a cluster holds (gone ones included until looked at). */
  nodePoolIdsOf(clusterId: string): string[] {
    return [...(this.clusters.get(clusterId)?.nodePools.keys() ?? [])];
  }

  private durationsOf(target: DurationTarget): Durations {
    const override = this.durationsFor?.(target);
    return override ? { ...this.durations(), ...override } : this.durations();
  }

  private clusterTarget(record: { id: string; body: Json }, action: DurationTarget['action']): DurationTarget {
    return { kind: 'cluster', action, clusterId: record.id, clusterName: String(record.body.name ?? '') };
  }

  private nodePoolTarget(cluster: ClusterRecord, nodePoolId: string, action: DurationTarget['action']): DurationTarget {
    return { kind: 'nodePool', action, clusterId: cluster.id, clusterName: String(cluster.body.name ?? ''), nodePoolId };
  }

  addProvisionFailure(rule: ProvisionFailureRule): void {
    this.failureRules.push({ ...rule, applied: 0 });
  }

  clearProvisionFailures(): void {
    this.failureRules = [];
  }

  reset(): void {
    this.clusters.clear();
    this.failureRules = [];
  }

  createCluster(body: Json): ClusterRecord {
    const requested = typeof body.id === 'string' ? body.id : undefined;
    const id = requested ?? newClusterId();
    if (requested !== undefined && this.findCluster(requested)) throw new OcmError(409, `Cluster '${requested}' already exists`);
    const rule = this.failureRules.find((r) => r.clusterName === undefined || r.clusterName === body.name);
    if (rule) rule.applied++;
    this.failureRules = this.failureRules.filter((r) => r.times === undefined || r.applied < r.times);
    const record: ClusterRecord = {
      id,
      seq: this.seq++,
      body: { ...body, id },
      lifecycle: newLifecycle(this.now(), this.durationsOf(this.clusterTarget({ id, body }, 'create')), rule !== undefined),
      ...(rule
        ? { error: { code: rule.code, message: rule.message, description: rule.description, inflightChecks: rule.inflightChecks } }
        : {}),
      nodePools: new Map(),
      credentials: new Map(),
      externalAuths: new Map(),
    };
    this.clusters.set(id, record);
    this.onTouched?.(id);
    return record;
  }

  /** The cluster record whatever its phase (a gone one until looked at): for reading past states. */
  peekCluster(id: string): ClusterRecord | undefined {
    return this.clusters.get(id);
  }

  /** The cluster, unless it does not exist or its deletion finished. */
  findCluster(id: string): ClusterRecord | undefined {
    const record = this.clusters.get(id);
    if (record && phaseAt(record.lifecycle, this.now()) === 'gone') {
      this.clusters.delete(id);
      return undefined;
    }
    if (record) this.settle(record);
    return record;
  }

  getCluster(id: string): ClusterRecord {
    const record = this.findCluster(id);
    if (!record) throw new OcmError(404, `Cluster '${id}' not found`);
    return record;
  }

  clusterPhase(record: ClusterRecord): Phase {
    return phaseAt(record.lifecycle, this.now());
  }

  updateCluster(id: string, patch: Json): ClusterRecord {
    const record = this.getCluster(id);
    const phase = this.clusterPhase(record);
    if (!startUpdate(record.lifecycle, this.now(), this.durationsOf(this.clusterTarget(record, 'update')))) {
      throw new OcmError(409, `Cluster '${id}' is ${phase === 'ready' ? 'being deleted' : phase}; it can be updated only when ready`);
    }
    this.settle(record, true);
    record.pendingPatch = { ...patch };
    this.onTouched?.(id);
    return record;
  }

  deleteCluster(id: string): void {
    const record = this.getCluster(id);
    startDeletion(record.lifecycle, this.now(), this.durationsOf(this.clusterTarget(record, 'delete')));
    this.onTouched?.(id);
  }

  failCluster(id: string, error: ProvisionError): void {
    const record = this.getCluster(id);
    record.error = { ...error };
    record.lifecycle.failedAt = this.now();
    this.onTouched?.(id);
  }

  /**
   * Live clusters matching every term (`=`: equal; `in`: equal to one of the values) of at least one
   * alternative, in creation order.
   */
  searchClusters(alternatives: ReadonlyArray<readonly SearchTerm[]>): ClusterRecord[] {
    const out: ClusterRecord[] = [];
    for (const id of [...this.clusters.keys()]) {
      const record = this.findCluster(id);
      if (record && alternatives.some((terms) => terms.every((t) => termMatches(record.body, t)))) out.push(record);
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  createNodePool(clusterId: string, body: Json): NodePoolRecord {
    const cluster = this.getCluster(clusterId);
    if (cluster.lifecycle.deletion) throw new OcmError(409, `Cluster '${clusterId}' is being deleted`);
    const id = String(body.id);
    if (this.findNodePool(cluster, id)) throw new OcmError(409, `Node pool '${id}' already exists in cluster '${clusterId}'`);
    const record: NodePoolRecord = {
      id,
      clusterId,
      body: { ...body },
      lifecycle: newLifecycle(this.now(), this.durationsOf(this.nodePoolTarget(cluster, id, 'create'))),
    };
    cluster.nodePools.set(id, record);
    this.onTouched?.(clusterId, id);
    return record;
  }

  private findNodePool(cluster: ClusterRecord, id: string): NodePoolRecord | undefined {
    const record = cluster.nodePools.get(id);
    if (record && phaseAt(record.lifecycle, this.now()) === 'gone') {
      cluster.nodePools.delete(id);
      return undefined;
    }
    if (record) this.settle(record);
    return record;
  }

  /** The live node pools of one cluster, in creation order. 404 without the cluster. */
  nodePoolsOf(clusterId: string): NodePoolRecord[] {
    const cluster = this.getCluster(clusterId);
    const out: NodePoolRecord[] = [];
    for (const id of [...cluster.nodePools.keys()]) {
      const record = this.findNodePool(cluster, id);
      if (record) out.push(record);
    }
    return out.sort((a, b) => a.lifecycle.createdAt - b.lifecycle.createdAt);
  }

  getNodePool(clusterId: string, id: string): NodePoolRecord {
    const record = this.findNodePool(this.getCluster(clusterId), id);
    if (!record) throw new OcmError(404, `Node pool '${id}' not found in cluster '${clusterId}'`);
    return record;
  }

  /** A node pool of a cluster being uninstalled is uninstalling too. */
  nodePoolPhase(record: NodePoolRecord): Phase {
    const cluster = this.clusters.get(record.clusterId);
    const clusterPhase = cluster ? phaseAt(cluster.lifecycle, this.now()) : 'gone';
    if (clusterPhase === 'uninstalling' || clusterPhase === 'gone') return clusterPhase;
    return phaseAt(record.lifecycle, this.now());
  }

  updateNodePool(clusterId: string, id: string, patch: Json): NodePoolRecord {
    const record = this.getNodePool(clusterId, id);
    const phase = this.nodePoolPhase(record);
    if (!startUpdate(record.lifecycle, this.now(), this.durationsOf(this.nodePoolTarget(this.getCluster(clusterId), id, 'update')))) {
      throw new OcmError(409, `Node pool '${id}' is ${phase}; it can be updated only when ready`);
    }
    this.settle(record, true);
    record.pendingPatch = { ...patch };
    this.onTouched?.(clusterId, id);
    return record;
  }

  deleteNodePool(clusterId: string, id: string): void {
    const record = this.getNodePool(clusterId, id);
    startDeletion(record.lifecycle, this.now(), this.durationsOf(this.nodePoolTarget(this.getCluster(clusterId), id, 'delete')));
    this.onTouched?.(clusterId, id);
  }

  failNodePool(clusterId: string, id: string, message: string, recoverable = false): void {
    const record = this.getNodePool(clusterId, id);
    record.errorMessage = message;
    record.recoverable = recoverable;
    record.lifecycle.failedAt = this.now();
    this.onTouched?.(clusterId, id);
  }

  /** Takes a PATCH into the body once the update it started is over (or, `now`, before the next one starts). */
  private settle(record: ClusterRecord | NodePoolRecord, now = false): void {
    if (!record.pendingPatch) return;
    const update = record.lifecycle.update;
    if (!now && update && this.now() < update.startedAt + update.updatingMs) return;
    record.body = { ...mergePatch(record.body, record.pendingPatch), id: record.id };
    delete record.pendingPatch;
  }

  /** Every live cluster, in creation order. */
  allClusters(): ClusterRecord[] {
    return this.searchClusters([[]]);
  }
}

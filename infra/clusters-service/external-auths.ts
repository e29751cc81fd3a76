/**
 * External auths (OIDC providers) of the simulated clusters. Kept simple, derived from time like
 * the rest:
 *
 *   create → installing → ready after externalAuthMs
 *   PATCH (not while uninstalling) → updating → ready after externalAuthMs
 *   DELETE → uninstalling → gone (404) after externalAuthMs
 *   forced error (admin) → error with a message, until updated or deleted
 *   awaiting a secret (admin) → awaiting_secret, until updated or deleted: CS holds the configuration
 *   and waits for a confidential client's secret the customer sets on the cluster
 *
 * They live in their cluster's record, so a cluster that is gone takes them along.
 */
import { clusterEndInstants } from './break-glass';
import type { SubresourceDurations } from './lifecycle';
import { OcmError } from './ocm-errors';
import type { WatchedObject } from './state-events';
import type { ClusterRecord, Json, SimulatorStore } from './store';
import { externalAuthHref, timestamp } from './views';

export type ExternalAuthState = 'installing' | 'updating' | 'ready' | 'awaiting_secret' | 'uninstalling' | 'error' | 'gone';

export interface ExternalAuthRecord {
  readonly id: string;
  readonly clusterId: string;
  readonly seq: number;
  /** issuer, clients, claim: what was created, with the patches applied. */
  spec: Json;
  readonly createdAt: number;
  readonly readyMs: number;
  update?: { readonly startedAt: number; readonly ms: number };
  deletion?: { readonly startedAt: number; readonly ms: number };
  error?: { readonly at: number; readonly message: string };
  /** Reports `awaiting_secret` from then on (admin), until the next PATCH. */
  awaitingSecret?: { readonly at: number };
}

/** The state at `at`, and the instant it began (`last_updated_timestamp`). */
export function externalAuthStateAt(r: ExternalAuthRecord, at: number): { state: ExternalAuthState; since: number } {
  const del = r.deletion;
  if (del && at >= del.startedAt) {
    const end = del.startedAt + del.ms;
    return at >= end ? { state: 'gone', since: end } : { state: 'uninstalling', since: del.startedAt };
  }
  if (r.error && at >= r.error.at) return { state: 'error', since: r.error.at };
  if (r.awaitingSecret && at >= r.awaitingSecret.at) return { state: 'awaiting_secret', since: r.awaitingSecret.at };
  const installed = r.createdAt + r.readyMs;
  if (at < installed) return { state: 'installing', since: r.createdAt };
  const upd = r.update;
  if (upd && at >= upd.startedAt) {
    const end = upd.startedAt + upd.ms;
    return at < end ? { state: 'updating', since: upd.startedAt } : { state: 'ready', since: end };
  }
  return { state: 'ready', since: installed };
}

function externalAuthInstants(r: ExternalAuthRecord): number[] {
  const out = [r.createdAt + r.readyMs];
  if (r.update) out.push(r.update.startedAt + r.update.ms);
  if (r.deletion) out.push(r.deletion.startedAt + r.deletion.ms);
  return out;
}

/** An external auth as Clusters Service shows it: its spec, and `status.state` with the instant that state began. */
export function externalAuthView(record: ExternalAuthRecord, at: number): Json {
  const { state, since } = externalAuthStateAt(record, at);
  return {
    ...record.spec,
    kind: 'ExternalAuth',
    id: record.id,
    href: externalAuthHref(record.clusterId, record.id),
    status: {
      state: { value: state, last_updated_timestamp: timestamp(since) },
      ...(state === 'error' && record.error ? { message: record.error.message } : {}),
    },
  };
}

export class ExternalAuths {
  private seq = 0;

  /** Told after every change made here: the state-change events follow external auths from there. */
  onTouched?: (object: WatchedObject) => void;

  constructor(
    private readonly store: SimulatorStore,
    private readonly now: () => number,
    private readonly durations: () => SubresourceDurations,
  ) {}

  /** `POST …/external_auths`: `id` from the body, one per id in a cluster (409). */
  create(clusterId: string, body: Json): ExternalAuthRecord {
    const cluster = this.store.getCluster(clusterId);
    if (cluster.lifecycle.deletion) throw new OcmError(409, `Cluster '${clusterId}' is being deleted`);
    const id = String(body.id);
    if (this.find(cluster, id)) throw new OcmError(409, `External auth '${id}' already exists for cluster '${clusterId}'`);
    const { id: _id, ...spec } = body;
    const record: ExternalAuthRecord = {
      id,
      clusterId,
      seq: this.seq++,
      spec,
      createdAt: this.now(),
      readyMs: this.durations().externalAuthMs,
    };
    cluster.externalAuths.set(id, record);
    this.touched(record);
    return record;
  }

  get(clusterId: string, id: string): ExternalAuthRecord {
    const record = this.find(this.store.getCluster(clusterId), id);
    if (!record) throw new OcmError(404, `External auth '${id}' not found for cluster '${clusterId}'`);
    return record;
  }

  /** Every live external auth of the cluster, in creation order. */
  list(clusterId: string): ExternalAuthRecord[] {
    const cluster = this.store.getCluster(clusterId);
    return [...cluster.externalAuths.keys()]
      .map((id) => this.find(cluster, id))
      .filter((r): r is ExternalAuthRecord => r !== undefined)
      .sort((a, b) => a.seq - b.seq);
  }

  /** `PATCH`: the spec changes and the external auth is `updating` (an error is cleared: a new spec is tried). */
  update(clusterId: string, id: string, patch: Json): ExternalAuthRecord {
    const record = this.get(clusterId, id);
    if (record.deletion) throw new OcmError(409, `External auth '${id}' is being deleted; it cannot be updated`);
    record.spec = { ...record.spec, ...patch };
    record.update = { startedAt: this.now(), ms: this.durations().externalAuthMs };
    record.error = undefined;
    record.awaitingSecret = undefined;
    this.touched(record);
    return record;
  }

  /** `DELETE`: `uninstalling`, then gone; repeating it changes nothing. */
  delete(clusterId: string, id: string): void {
    const record = this.get(clusterId, id);
    record.deletion ??= { startedAt: this.now(), ms: this.durations().externalAuthMs };
    this.touched(record);
  }

  /** Admin: the external auth reports `error` with `message` from now on. */
  fail(clusterId: string, id: string, message: string): void {
    const record = this.get(clusterId, id);
    record.error = { at: this.now(), message };
    this.touched(record);
  }

  /** Admin: the external auth reports `awaiting_secret` from now on, until its next PATCH. */
  awaitSecret(clusterId: string, id: string): void {
    const record = this.get(clusterId, id);
    record.awaitingSecret = { at: this.now() };
    this.touched(record);
  }

  /** An external auth as the state-change events follow it: `deleted` once it or its cluster is gone. */
  watched(clusterId: string, id: string): WatchedObject {
    const store = this.store;
    return {
      kind: 'ExternalAuth',
      id,
      href: externalAuthHref(clusterId, id),
      stateAt(at) {
        const record = store.peekCluster(clusterId)?.externalAuths.get(id);
        if (!record || store.stateAt(clusterId, undefined, at) === 'gone') return 'deleted';
        const { state } = externalAuthStateAt(record, at);
        return state === 'gone' ? 'deleted' : state;
      },
      instants() {
        const record = store.peekCluster(clusterId)?.externalAuths.get(id);
        return record ? [...externalAuthInstants(record), ...store.lifecyclesOf(clusterId).flatMap(clusterEndInstants)] : [];
      },
    };
  }

  /** The external auth unless its deletion finished (then it is dropped). */
  private find(cluster: ClusterRecord, id: string): ExternalAuthRecord | undefined {
    const record = cluster.externalAuths.get(id);
    if (record && externalAuthStateAt(record, this.now()).state === 'gone') {
      cluster.externalAuths.delete(id);
      return undefined;
    }
    return record;
  }

  private touched(record: ExternalAuthRecord): void {
    this.onTouched?.(this.watched(record.clusterId, record.id));
  }
}

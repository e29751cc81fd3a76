/**
 * Break-glass credentials of the simulated clusters (served under /api/clusters_mgmt/v1). As for
 * clusters, nothing runs on timers: a credential keeps its instants and its status is derived from
 * them at read time.
 *
 *   request (cluster ready) → created → issued after credentialIssueMs (failed when planned) → expired 24 h later
 *   revoke (every created or issued one) → awaiting_revocation → revoked after credentialRevokeMs (one failed when planned)
 *
 * Credentials live in their cluster's record, so a cluster that is gone takes them along.
 */
import { randomBytes } from 'node:crypto';
import type { SubresourceDurations } from './lifecycle';
import { OcmError } from './ocm-errors';
import type { WatchedObject } from './state-events';
import { newClusterId, type ClusterRecord, type Json, type SimulatorStore } from './store';
import { credentialHref, timestamp } from './views';

export type CredentialStatus = 'created' | 'issued' | 'expired' | 'awaiting_revocation' | 'revoked' | 'failed';

/** How long an issued credential lasts, as in Clusters Service. */
export const CREDENTIAL_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface CredentialRecord {
  readonly id: string;
  readonly clusterId: string;
  readonly seq: number;
  readonly username: string;
  readonly createdAt: number;
  readonly issueMs: number;
  /** Ends `failed` instead of `issued` (admin: failNextCredentialRequests). */
  readonly failsToIssue: boolean;
  /** Fake, but unique per credential: tests look for it where it must not be. */
  readonly kubeconfig: string;
  revocation?: { readonly requestedAt: number; readonly revokeMs: number; readonly fails: boolean };
}

export function issuedAt(c: CredentialRecord): number {
  return c.createdAt + c.issueMs;
}

/** When the revocation finished, if it did by `at`. */
export function revokedAt(c: CredentialRecord, at: number): number | undefined {
  const r = c.revocation;
  return r && at >= r.requestedAt + r.revokeMs ? r.requestedAt + r.revokeMs : undefined;
}

export function credentialStatusAt(c: CredentialRecord, at: number): CredentialStatus {
  const r = c.revocation;
  if (r && at >= r.requestedAt) return revokedAt(c, at) === undefined ? 'awaiting_revocation' : r.fails ? 'failed' : 'revoked';
  if (at < issuedAt(c)) return 'created';
  if (c.failsToIssue) return 'failed';
  return at >= issuedAt(c) + CREDENTIAL_LIFETIME_MS ? 'expired' : 'issued';
}

function credentialInstants(c: CredentialRecord): number[] {
  const out = [issuedAt(c), issuedAt(c) + CREDENTIAL_LIFETIME_MS];
  if (c.revocation) out.push(c.revocation.requestedAt, c.revocation.requestedAt + c.revocation.revokeMs);
  return out;
}

function fakeKubeconfig(cluster: ClusterRecord, username: string): string {
  const data = (bytes: number): string => randomBytes(bytes).toString('base64');
  const name = String(cluster.body.name ?? cluster.id);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: https://api.${name}.simulated.example:443`,
    `    certificate-authority-data: ${data(48)}`,
    'users:',
    `- name: ${username}`,
    '  user:',
    `    client-certificate-data: ${data(48)}`,
    `    client-key-data: ${data(48)}`,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${username}`,
    `current-context: ${name}`,
    '',
  ].join('\n');
}

/**
 * A break-glass credential as Clusters Service shows it. The kubeconfig only when asked (GET of one
 * credential) and only while issued; the expiration once issued, the revocation once revoked.
 */
export function credentialView(record: CredentialRecord, at: number, options: { withKubeconfig: boolean }): Json {
  const status = credentialStatusAt(record, at);
  const view: Json = {
    kind: 'BreakGlassCredential',
    id: record.id,
    href: credentialHref(record.clusterId, record.id),
    username: record.username,
    status,
  };
  if (!record.failsToIssue && at >= issuedAt(record)) view.expiration_timestamp = timestamp(issuedAt(record) + CREDENTIAL_LIFETIME_MS);
  const revoked = revokedAt(record, at);
  if (status === 'revoked' && revoked !== undefined) view.revocation_timestamp = timestamp(revoked);
  if (options.withKubeconfig && status === 'issued') view.kubeconfig = record.kubeconfig;
  return view;
}

export class BreakGlassCredentials {
  private seq = 0;
  /** Cluster id → how many of its next requests end `failed`. */
  private plannedIssueFailures = new Map<string, number>();
  /** Clusters whose next revocation ends with one credential `failed`. */
  private plannedRevocationFailures = new Set<string>();

  /** Told after every change made here: the state-change events follow credentials from there. */
  onTouched?: (object: WatchedObject) => void;

  constructor(
    private readonly store: SimulatorStore,
    private readonly now: () => number,
    private readonly durations: () => SubresourceDurations,
  ) {}

  /** `POST …/break_glass_credentials`: a chosen `id` is honoured (409 if taken); the cluster must be ready (400). */
  request(clusterId: string, body: Json): CredentialRecord {
    const cluster = this.store.getCluster(clusterId);
    const phase = this.store.clusterPhase(cluster);
    if (phase !== 'ready' || cluster.lifecycle.deletion) {
      const state = cluster.lifecycle.deletion ? 'being deleted' : `in state '${phase}'`;
      throw new OcmError(400, `Cluster '${clusterId}' is ${state}: break glass credentials can only be requested for a ready cluster`);
    }
    const id = typeof body.id === 'string' ? body.id : newClusterId();
    if (cluster.credentials.has(id)) throw new OcmError(409, `Break glass credential '${id}' already exists for cluster '${clusterId}'`);
    const username = `system:customer-break-glass:${id.slice(0, 12)}`;
    const record: CredentialRecord = {
      id,
      clusterId,
      seq: this.seq++,
      username,
      createdAt: this.now(),
      issueMs: this.durations().credentialIssueMs,
      failsToIssue: this.takeIssueFailure(clusterId),
      kubeconfig: fakeKubeconfig(cluster, username),
    };
    cluster.credentials.set(id, record);
    this.touched(record);
    return record;
  }

  get(clusterId: string, id: string): CredentialRecord {
    const record = this.store.getCluster(clusterId).credentials.get(id);
    if (!record) throw new OcmError(404, `Break glass credential '${id}' not found for cluster '${clusterId}'`);
    return record;
  }

  /** Every credential of the cluster, in request order. */
  list(clusterId: string): CredentialRecord[] {
    return [...this.store.getCluster(clusterId).credentials.values()].sort((a, b) => a.seq - b.seq);
  }

  /**
   * `DELETE …/break_glass_credentials`: every created or issued credential awaits revocation. While
   * one still does, a new revocation is refused with the 400 Clusters Service answers.
   */
  revokeAll(clusterId: string): void {
    const credentials = this.list(clusterId);
    const now = this.now();
    if (credentials.some((c) => credentialStatusAt(c, now) === 'awaiting_revocation')) {
      throw new OcmError(400, `Cannot revoke the break glass credentials of cluster '${clusterId}': revocation has already been requested`);
    }
    const revocable = credentials.filter((c) => ['created', 'issued'].includes(credentialStatusAt(c, now)));
    const failOne = revocable.length > 0 && this.plannedRevocationFailures.delete(clusterId);
    const revokeMs = this.durations().credentialRevokeMs;
    revocable.forEach((c, i) => {
      c.revocation = { requestedAt: now, revokeMs, fails: failOne && i === 0 };
      this.touched(c);
    });
  }

  /** The next `count` requests for this cluster end `failed` instead of `issued`. */
  failNextRequests(clusterId: string, count: number): void {
    this.store.getCluster(clusterId);
    if (!Number.isInteger(count) || count < 1) throw new OcmError(400, `count must be a whole number >= 1, got ${count}`);
    this.plannedIssueFailures.set(clusterId, (this.plannedIssueFailures.get(clusterId) ?? 0) + count);
  }

  /** The next revocation of this cluster's credentials ends with one of them `failed`. */
  failNextRevocation(clusterId: string): void {
    this.store.getCluster(clusterId);
    this.plannedRevocationFailures.add(clusterId);
  }

  /** Forgets planned failures (the credentials went with the clusters). */
  reset(): void {
    this.plannedIssueFailures.clear();
    this.plannedRevocationFailures.clear();
  }

  /** A credential as the state-change events follow it: `deleted` once it or its cluster is gone. */
  watched(clusterId: string, id: string): WatchedObject {
    const store = this.store;
    return {
      kind: 'BreakGlassCredential',
      id,
      href: credentialHref(clusterId, id),
      stateAt(at) {
        const record = store.peekCluster(clusterId)?.credentials.get(id);
        return !record || store.stateAt(clusterId, undefined, at) === 'gone' ? 'deleted' : credentialStatusAt(record, at);
      },
      instants() {
        const cluster = store.peekCluster(clusterId);
        const record = cluster?.credentials.get(id);
        return record ? [...credentialInstants(record), ...store.lifecyclesOf(clusterId).flatMap(clusterEndInstants)] : [];
      },
    };
  }

  private touched(record: CredentialRecord): void {
    this.onTouched?.(this.watched(record.clusterId, record.id));
  }

  private takeIssueFailure(clusterId: string): boolean {
    const left = this.plannedIssueFailures.get(clusterId) ?? 0;
    if (left === 0) return false;
    if (left === 1) this.plannedIssueFailures.delete(clusterId);
    else this.plannedIssueFailures.set(clusterId, left - 1);
    return true;
  }
}

/** The instant a cluster's deletion finishes, when one started: its children are gone from then. */
export function clusterEndInstants(lifecycle: ClusterRecord['lifecycle']): number[] {
  const d = lifecycle.deletion;
  return d ? [d.startedAt + d.deleteStartMs + d.uninstallingMs] : [];
}

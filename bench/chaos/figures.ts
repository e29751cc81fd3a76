/**
 * Figures computed from the end state (and the monitors), optionally restricted to a time window
 * (operations by the time the frontend wrote them, clusters by the time their create was written):
 * operations lost, duplicate and leaked CS clusters, duplicate and missing ARM notifications,
 * stalled ranges, lease takeovers.
 */
import { summarize } from '../harness/stats';
import { identityKey, type LiveCluster } from './clusters-service';
import type { EndState, OperationRow, ResourceRow } from './end-state';
import type { Stall } from './lag-monitor';
import type { Takeover } from './lease-watch';
import { TERMINAL } from './terminal-watch';

export interface Window {
  readonly from: number;
  readonly to: number;
}

const inWindow = (t: number, w?: Window): boolean => w === undefined || (t >= w.from && t < w.to);

export interface OperationFigures {
  operations: number;
  byStatus: Record<string, number>;
  /** Never terminal by the end of the drain. */
  lost: number;
  lostSample: string[];
  notifiedOperations: number;
  /** Notifications beyond the first, summed over operations. */
  duplicateNotifications: number;
  duplicateNotificationRatio: number;
  /** Terminal operations that asked for a notification and got none. */
  missingNotifications: number;
}

export function operationFigures(rows: readonly OperationRow[], notifications: ReadonlyMap<string, number>, w?: Window): OperationFigures {
  const mine = rows.filter((r) => inWindow(Date.parse(String(r.startTime)), w));
  const byStatus: Record<string, number> = {};
  const lost: string[] = [];
  let notified = 0;
  let duplicates = 0;
  let missing = 0;
  for (const r of mine) {
    const status = String(r.status);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    const n = notifications.get(r.id) ?? 0;
    if (n > 0) notified++;
    duplicates += Math.max(0, n - 1);
    if (!TERMINAL.has(status)) lost.push(`${r.id} (${String(r.request)}, ${status})`);
    else if (n === 0) missing++;
  }
  return {
    operations: mine.length,
    byStatus,
    lost: lost.length,
    lostSample: lost.slice(0, 10),
    notifiedOperations: notified,
    duplicateNotifications: duplicates,
    duplicateNotificationRatio: notified === 0 ? 0 : duplicates / notified,
    missingNotifications: missing,
  };
}

export interface ClusterFigures {
  liveClusters: number;
  /** Live clusters beyond the first per Azure identity. */
  duplicateClusters: number;
  duplicateIdentities: string[];
  /** Live clusters no Resource references (its resource deleted, or never recorded). */
  leakedClusters: number;
  leakedSample: string[];
  /** Live node pools (of referenced clusters) no node-pool Resource references. */
  leakedNodePools: number;
}

const HREF = /^\/api\/aro_hcp\/v1alpha1\/clusters\/([^/]+)(?:\/node_pools\/([^/]+))?$/;

function references(resources: readonly ResourceRow[]): { clusters: Set<string>; nodePools: Set<string> } {
  const clusters = new Set<string>();
  const nodePools = new Set<string>();
  for (const r of resources) {
    for (const href of [r.internalId, r.pendingInternalId]) {
      const m = HREF.exec(href ?? '');
      if (!m) continue;
      if (m[2] === undefined) clusters.add(m[1]);
      else nodePools.add(`${m[1]}/${m[2]}`);
    }
  }
  return { clusters, nodePools };
}

/** `createdAt`: identity key → when the frontend wrote its create (clusters of other identities count only without a window). */
export function clusterFigures(state: EndState, createdAt: ReadonlyMap<string, number>, w?: Window): ClusterFigures {
  const refs = references(state.resources);
  const relevant = (c: LiveCluster): boolean => w === undefined || inWindow(createdAt.get(identityKey(c.azure)) ?? -1, w);
  const clusters = state.clusters.filter(relevant);
  const byIdentity = new Map<string, number>();
  for (const c of clusters) byIdentity.set(identityKey(c.azure), (byIdentity.get(identityKey(c.azure)) ?? 0) + 1);
  const duplicates = [...byIdentity.entries()].filter(([, n]) => n > 1);
  const leaked = clusters.filter((c) => !refs.clusters.has(c.id));
  const leakedNodePools = clusters
    .filter((c) => refs.clusters.has(c.id))
    .flatMap((c) => c.nodePools.map((np) => `${c.id}/${np.id}`))
    .filter((k) => !refs.nodePools.has(k));
  return {
    liveClusters: clusters.length,
    duplicateClusters: duplicates.reduce((s, [, n]) => s + n - 1, 0),
    duplicateIdentities: duplicates.slice(0, 10).map(([k, n]) => `${k} ×${n}`),
    leakedClusters: leaked.length,
    leakedSample: leaked.slice(0, 10).map((c) => `${c.id} ${identityKey(c.azure)} (${c.state})`),
    leakedNodePools: leakedNodePools.length,
  };
}

export interface StallFigures {
  /** Ranges whose lag did not fall and whose checkpoint did not move for the stall window: no progress. */
  rangesStalled: number;
  episodes: string[];
  /**
   * Ranges whose lag did not fall for the window while their checkpoint kept moving: a backlog being
   * worked off, not a stall (the emulator's lag estimate also counts other ranges' writes, see its README).
   */
  rangesBacklogged: number;
  backlogEpisodes: string[];
}

/** `t0`: the run's start, for offsets in the episode descriptions. */
export function stallFigures(stalls: readonly Stall[], w?: Window, t0 = 0): StallFigures {
  const mine = stalls.filter((s) => w === undefined || (s.to >= w.from && s.from < w.to));
  const at = (t: number): string => (t0 ? `+${((t - t0) / 1000).toFixed(0)} s` : new Date(t).toISOString());
  const describe = (s: Stall): string =>
    `${s.lease}: lag ${s.lagAtStart} → ${s.lagAtEnd} from ${at(s.from)} to ${at(s.to)} (${((s.to - s.from) / 1000).toFixed(1)} s; ` +
    `${s.checkpoints === 1 ? 'checkpoint never moved' : `${s.checkpoints} checkpoints`}; owners ${s.owners.join(', ')})`;
  const stalled = mine.filter((s) => s.checkpoints <= 1);
  const backlogged = mine.filter((s) => s.checkpoints > 1);
  return {
    rangesStalled: new Set(stalled.map((s) => s.lease)).size,
    episodes: stalled.slice(0, 10).map(describe),
    rangesBacklogged: new Set(backlogged.map((s) => s.lease)).size,
    backlogEpisodes: backlogged.slice(0, 10).map(describe),
  };
}

export interface TakeoverFigures {
  kills: number;
  measured: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  targetMs: number;
  overTarget: number;
  timedOut: number;
}

export function takeoverFigures(takeovers: readonly Takeover[], kills: number, targetMs: number): TakeoverFigures {
  const values = takeovers.filter((t) => t.takeoverMs !== undefined && !t.timedOut).map((t) => t.takeoverMs as number);
  const s = summarize(values);
  return {
    kills,
    measured: values.length,
    p50Ms: s.p50,
    p99Ms: s.p99,
    maxMs: s.max,
    targetMs,
    overTarget: values.filter((v) => v > targetMs).length,
    timedOut: takeovers.filter((t) => t.timedOut).length,
  };
}

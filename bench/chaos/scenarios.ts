/**
 * The scenarios of a chaos run, each with its figures and a verdict: a scenario fails when one of
 * its figures misses its target, and says which and by how much.
 *
 * - load: the whole run (every operation, every kill): lost, duplicate/leaked clusters, duplicate
 *   and missing notifications, stalled ranges (lag not falling and checkpoint not moving), lease takeover, unexpected exits, peak RSS;
 * - cosmos-faults, cs-faults, arm-down, stuck-lock: the same figures for the operations written
 *   (clusters created, ranges lagging) within the fault's window, plus what the fault did;
 * - malformed: every malformed document dead-lettered exactly once with its reason, the hostile
 *   valid ones settled without harm.
 */
import type { ChaosProfile } from './profile';
import type { ClustersService } from './clusters-service';
import type { EndState } from './end-state';
import { clusterFigures, operationFigures, stallFigures, takeoverFigures, type Window } from './figures';
import type { Stall } from './lag-monitor';
import type { Takeover } from './lease-watch';
import type { MalformedDocument } from './malformed';
import { malformedFigures } from './malformed-figures';
import { countByCause, explainDuplicates, type Arrival, type DuplicateExplanation } from './duplicate-causes';
import type { PhaseName, PhaseRecord } from './schedule';
import type { StuckLockResult } from './stuck-lock';
import type { UnexpectedExit } from './instances';
import type { Workload } from './workload';

const DUPLICATE_NOTIFICATION_BUDGET = 0.001;
/** The smallest number of notified operations in which a 0.1 % budget means anything (one duplicate in 300 is 0.33 %). */
const DUPLICATE_BUDGET_MIN_SAMPLE = 1_000;
/** Kills from which the takeover bound is checked at p99 (fewer: at p50, every takeover must still complete). */
const TAKEOVER_BOUND_MIN_SAMPLE = 20;
const LOCK_TTL_MS = 10_000;

export interface ScenarioResult {
  readonly name: string;
  readonly title: string;
  readonly verdict: 'PASS' | 'FAIL';
  readonly failures: string[];
  readonly figures: Record<string, unknown>;
}

export interface RunFacts {
  readonly profile: ChaosProfile;
  readonly state: EndState;
  readonly workload: Workload;
  readonly malformed: readonly MalformedDocument[];
  readonly cs: ClustersService;
  readonly phases: readonly PhaseRecord[];
  readonly stuck: StuckLockResult | undefined;
  readonly stuckOperations: readonly string[];
  readonly stuckSubscription: string;
  readonly stalls: readonly Stall[];
  readonly takeovers: readonly Takeover[];
  readonly kills: number;
  /** Every notification's arrival (ms since epoch) and deliverer, per operation document id. */
  readonly notificationArrivals: ReadonlyMap<string, readonly Arrival[]>;
  readonly peakRss: ReadonlyArray<{ slot: string; peakRssBytes: number; generations: number }>;
  readonly emulatorPeakRssBytes: number;
  readonly unexpectedExits: readonly UnexpectedExit[];
  readonly maxLeases: number;
  readonly maxLagPerLease: Readonly<Record<string, number>>;
  readonly drain: { readonly drained: boolean; readonly ms: number };
  readonly harnessErrors: readonly string[];
}

class Checks {
  readonly failures: string[] = [];
  expect(ok: boolean, what: string): void {
    if (!ok) this.failures.push(what);
  }
}

function windowOf(phases: readonly PhaseRecord[], first: PhaseName, last: PhaseName = first): Window | undefined {
  const a = phases.find((p) => p.name === first);
  const b = phases.find((p) => p.name === last);
  return a && b ? { from: a.from, to: b.to } : undefined;
}

function createdAt(workload: Workload): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of workload.issued)
    if (o.step === 'createCluster') out.set(`${o.target.sub}/${o.target.rg}/${o.target.cluster}`.toLowerCase(), o.writtenAt);
  return out;
}

/** Operation, cluster and stall figures within `w` (the whole run when undefined), checked against their targets. */
function common(f: RunFacts, c: Checks, w: Window | undefined, ops = f.state.operations): Record<string, unknown> {
  const o = operationFigures(ops, f.state.notifications, w);
  const k = clusterFigures(f.state, createdAt(f.workload), w);
  const s = stallFigures(f.stalls, w, f.phases[0]?.from ?? 0);
  c.expect(o.lost === 0, `${o.lost} operations lost (never terminal): ${o.lostSample.join('; ')}`);
  c.expect(k.duplicateClusters === 0, `${k.duplicateClusters} duplicate CS clusters: ${k.duplicateIdentities.join('; ')}`);
  c.expect(k.leakedClusters === 0, `${k.leakedClusters} leaked CS clusters: ${k.leakedSample.join('; ')}`);
  c.expect(k.leakedNodePools === 0, `${k.leakedNodePools} leaked CS node pools`);
  // Each lifecycle requests one credential: a second one CS created for a cluster is a RequestCredential done twice.
  const created = createdAt(f.workload);
  const twice = [...f.cs.credentialsCreated].filter(([id, n]) => n > 1 && (!w || inside(created.get(id) ?? -1, w)));
  c.expect(
    twice.length === 0,
    `${twice.length} clusters with a credential created twice: ${twice.map(([id, n]) => `${id} ×${n}`).join('; ')}`,
  );
  // Only a sample that can resolve the budget is held to it; every duplicate is checked against the kills in load().
  if (o.notifiedOperations >= DUPLICATE_BUDGET_MIN_SAMPLE) {
    c.expect(
      o.duplicateNotificationRatio <= DUPLICATE_NOTIFICATION_BUDGET,
      `duplicate ARM notifications ${pct(o.duplicateNotificationRatio)} > 0.1 % (${o.duplicateNotifications} of ${o.notifiedOperations})`,
    );
  }
  c.expect(o.missingNotifications === 0, `${o.missingNotifications} terminal operations never notified to ARM`);
  c.expect(s.rangesStalled === 0, `${s.rangesStalled} ranges stalled: ${s.episodes.join('; ')}`);
  const ids = new Set(ops.filter((r) => !w || inside(Date.parse(String(r.startTime)), w)).map((r) => r.id));
  const duplicates = duplicateExplanations(f).filter((d) => ids.has(d.operation));
  return {
    ...o,
    duplicatesByCause: countByCause(duplicates),
    duplicateSample: duplicates.slice(0, 5).map((d) => `${d.operation.slice(0, 8)} ${d.cause}: ${d.detail}`),
    ...k,
    duplicateCredentials: twice.length,
    ...s,
  };
}

const explanations = new WeakMap<RunFacts, DuplicateExplanation[]>();

/** Each duplicated notification with its cause (kill, same instance, handover), computed once per run. */
function duplicateExplanations(f: RunFacts): DuplicateExplanation[] {
  let out = explanations.get(f);
  if (!out) {
    out = explainDuplicates(f.notificationArrivals, f.takeovers, f.phases[0]?.from ?? 0);
    explanations.set(f, out);
  }
  return out;
}

/** Operations notified twice for another reason than their deliverer's SIGKILL (a defect, whatever the budget). */
function unexplainedDuplicates(f: RunFacts): string[] {
  return duplicateExplanations(f)
    .filter((d) => d.cause !== 'kill')
    .map((d) => `${d.operation} ${d.cause} (${d.detail})`);
}

const inside = (t: number, w: Window): boolean => t >= w.from && t < w.to;

const pct = (r: number): string => `${(r * 100).toFixed(3)} %`;

function result(name: string, title: string, c: Checks, figures: Record<string, unknown>): ScenarioResult {
  return { name, title, verdict: c.failures.length === 0 ? 'PASS' : 'FAIL', failures: c.failures, figures };
}

function load(f: RunFacts): ScenarioResult {
  const c = new Checks();
  const p = f.profile;
  const target = p.lease.expirationMs + p.lease.acquireMs;
  const t = takeoverFigures(f.takeovers, f.kills, target);
  const issuedIds = new Set(f.state.operations.map((o) => o.id));
  const vanished = f.workload.issued.filter((o) => !issuedIds.has(o.id)).length;
  const known = new Set([...f.workload.issued.map((o) => o.id), ...f.stuckOperations]);
  // Written by the frontend although the request failed (and was not found right after): ARM never learnt of them.
  const unattributed = f.state.operations.filter((o) => !known.has(o.id)).length;
  const t0 = f.phases[0]?.from ?? 0;
  const figures = {
    phases: f.phases.map((ph) => `${ph.name} +${((ph.from - t0) / 1000).toFixed(0)}–${((ph.to - t0) / 1000).toFixed(0)} s`),
    operationsIssued: f.workload.issued.length,
    operationsTarget: p.operations,
    subscriptions: p.subscriptions,
    frontendRequestsRetried: f.workload.retriedRequests,
    frontendRequestsRefused: f.workload.refused.length,
    frontendRefusalSample: f.workload.refused.slice(0, 3).map((r) => `${r.step}: ${r.reason}`),
    vanished,
    unattributedOperations: unattributed,
    ...common(f, c, undefined),
    maxLagPerLease: f.maxLagPerLease,
    takeover: t,
    unexpectedExits: f.unexpectedExits.map((e) => `${e.instanceName}: ${e.tail.split('\n').slice(-2).join(' | ')}`),
    peakRssMiB: Object.fromEntries(f.peakRss.map((r) => [r.slot, +(r.peakRssBytes / 2 ** 20).toFixed(1)])),
    instanceGenerations: Object.fromEntries(f.peakRss.map((r) => [r.slot, r.generations])),
    emulatorPeakRssMiB: +(f.emulatorPeakRssBytes / 2 ** 20).toFixed(1),
    drained: f.drain.drained,
    drainMs: f.drain.ms,
    harnessErrors: f.harnessErrors,
  };
  const unexplained = unexplainedDuplicates(f);
  Object.assign(figures, { duplicatesNotExplainedByAKill: unexplained.length });
  c.expect(
    unexplained.length === 0,
    `${unexplained.length} duplicate notifications not explained by their deliverer's SIGKILL: ${unexplained.slice(0, 5).join('; ')}`,
  );
  c.expect(vanished === 0, `${vanished} operations the frontend wrote are no longer in Cosmos`);
  c.expect(f.kills > 0 && t.measured > 0, `no lease takeover measured (${f.kills} kills)`);
  c.expect(t.timedOut === 0, `${t.timedOut} takeovers never completed`);
  // The bound is held at p99 where the sample can resolve it; a handful of kills (quick mode) only
  // has to show every takeover completing, and a typical one within the bound.
  const takeoverStat = t.measured >= TAKEOVER_BOUND_MIN_SAMPLE ? { name: 'p99', ms: t.p99Ms } : { name: 'p50', ms: t.p50Ms };
  c.expect(
    takeoverStat.ms <= target,
    `lease takeover ${takeoverStat.name} ${takeoverStat.ms} ms over ${target} ms (${t.overTarget} of ${t.measured} over; p50 ${t.p50Ms} ms, p99 ${t.p99Ms} ms, max ${t.maxMs} ms)`,
  );
  c.expect(f.unexpectedExits.length === 0, `${f.unexpectedExits.length} instances exited without being killed`);
  return result(
    'load',
    `${p.operations} operations, ${p.subscriptions} subscriptions, ${p.instances} instances, one SIGKILLed every ${p.killEveryMs / 1000} s`,
    c,
    figures,
  );
}

function cosmosFaults(f: RunFacts): ScenarioResult {
  const c = new Checks();
  const phase = f.phases.find((p) => p.name === 'cosmos-faults');
  const w = windowOf(f.phases, 'cosmos-faults');
  const notes = phase?.notes ?? {};
  const requests = Number(notes.requests ?? 0);
  const rate = (n: unknown): string => (requests ? pct(Number(n ?? 0) / requests) : 'n/a');
  const figures = {
    ...notes,
    realized: `429 ${rate(notes.throttled)}, 503 ${rate(notes.unavailable)}, dropped ${rate(notes.dropped)} of ${requests} requests`,
    leasesAfterSplit: f.maxLeases,
    ...common(f, c, w),
  };
  c.expect(phase !== undefined && notes.error === undefined, `phase failed: ${String(notes.error ?? 'not run')}`);
  c.expect(f.maxLeases > f.profile.partitions, `the split did not show in the Leases container (${f.maxLeases} leases at most)`);
  return result(
    'cosmos-faults',
    '10 % 429, 5 % 503, 1 % dropped connections, a live split of Operations, the emulator SIGKILLed and restarted on its --data-dir',
    c,
    figures,
  );
}

function csFaults(f: RunFacts): ScenarioResult {
  const c = new Checks();
  const w = windowOf(f.phases, 'cs-5xx', 'cs-down');
  const phases = f.phases.filter((p) => p.name.startsWith('cs-'));
  const figures = { ...Object.fromEntries(phases.map((p) => [p.name, p.notes])), ...common(f, c, w) };
  for (const p of phases) c.expect(p.notes.error === undefined, `${p.name} failed: ${String(p.notes.error)}`);
  const down = f.profile.phases.csDownMs / 1000;
  return result(
    'cs-faults',
    `CS 5xx bursts, latency beyond the ${f.profile.csTimeoutMs} ms timeout, create succeeded/response lost, CS down ${down} s`,
    c,
    figures,
  );
}

function armDown(f: RunFacts): ScenarioResult {
  const c = new Checks();
  const w = windowOf(f.phases, 'arm-down');
  // Operations that ended while ARM was down: their notification can only have come after it was back.
  const endedDuring = w
    ? f.state.operations.filter(
        (o) => ['Succeeded', 'Failed', 'Canceled'].includes(String(o.status)) && inside(Date.parse(String(o.lastTransitionTime)), w),
      )
    : [];
  const notifiedAfter = endedDuring.filter((o) => (f.state.firstNotifiedAt.get(o.id) ?? 0) >= (w?.to ?? 0) - 1_000).length;
  const figures = { terminalWhileDown: endedDuring.length, notifiedAfterRecovery: notifiedAfter, ...common(f, c, w) };
  return result('arm-down', `ARM notification endpoint down ${f.profile.phases.armDownMs / 1000} s, then back`, c, figures);
}

function malformed(f: RunFacts): ScenarioResult {
  const c = new Checks();
  const m = malformedFigures(f.malformed, f.state, f.cs, f.workload.issued);
  const s = stallFigures(f.stalls, undefined, f.phases[0]?.from ?? 0);
  c.expect(
    m.deadLetteredOnce === m.expectedDeadLetters,
    `${m.expectedDeadLetters - m.deadLetteredOnce} of ${m.expectedDeadLetters} malformed documents not dead-lettered exactly once (missing ${m.notDeadLettered}, more than once ${m.deadLetteredMoreThanOnce})`,
  );
  c.expect(m.withoutReason === 0, `${m.withoutReason} dead letters without a reason/error message`);
  c.expect(
    m.hostileSettled === m.hostileValid,
    `${m.hostileValid - m.hostileSettled} of ${m.hostileValid} quote-name Deletes not settled harmlessly`,
  );
  c.expect(m.victimsHarmed === 0, `${m.victimsHarmed} live clusters deleted through a quote-name injection`);
  c.expect(m.searchesRefused === 0, `${m.searchesRefused} CS searches refused as unparsable: ${m.searchesRefusedSample.join(' | ')}`);
  c.expect(s.rangesStalled === 0, `${s.rangesStalled} ranges stalled during the run: ${s.episodes.join('; ')}`);
  const { rows, ...rest } = m;
  return result(
    'malformed',
    `${f.malformed.length} malformed documents (${((f.malformed.length / Math.max(1, f.workload.issued.length)) * 100).toFixed(1)} % of the operations), every kind`,
    c,
    { ...rest, rangesStalled: s.rangesStalled, documents: rows },
  );
}

function stuckLock(f: RunFacts): ScenarioResult {
  const c = new Checks();
  const w = windowOf(f.phases, 'stuck-lock');
  const st = f.stuck;
  const ops = f.state.operations.filter((o) => o.partitionKey === f.stuckSubscription.toLowerCase());
  const waiting = ops.filter((o) => f.stuckOperations.includes(o.id));
  const ended = waiting.map((o) => Date.parse(String(o.lastTransitionTime))).filter(Number.isFinite);
  // Status write-backs on the subscription while the stuck frontend surely still held the lock (before its TTL ran out).
  const held = st
    ? { from: st.acquiredAt + 100, to: st.acquiredAt + Math.min(st.freedAfterMs ?? LOCK_TTL_MS, LOCK_TTL_MS) - 200 }
    : undefined;
  const writtenWhileHeld = held
    ? ops.filter((o) => {
        const t = Date.parse(String(o.lastTransitionTime));
        return o.lastTransitionTime !== o.startTime && t > held.from && t < held.to;
      }).length
    : 0;
  const lastDoneAfterFreedMs =
    st?.freedAfterMs !== undefined && ended.length ? Math.max(...ended) - (st.acquiredAt + st.freedAfterMs) : undefined;
  const figures = {
    ...(st ?? {}),
    operationsWaiting: f.stuckOperations.length,
    operationsWaitingTerminal: waiting.filter((o) => ['Succeeded', 'Failed', 'Canceled'].includes(String(o.status))).length,
    lastDoneAfterFreedMs,
    statusWritesWhileHeld: writtenWhileHeld,
    ...common(f, c, w && { from: w.from - 5_000, to: w.to }, ops),
  };
  c.expect(st !== undefined && st.error === undefined, `the stuck frontend did not get the lock: ${st?.error ?? 'not run'}`);
  c.expect(
    writtenWhileHeld === 0,
    `${writtenWhileHeld} Operation status changes on the subscription were written while the stuck frontend held its lock`,
  );
  if (st) {
    c.expect(st.heldForMs > LOCK_TTL_MS, `held ${st.heldForMs} ms, not beyond the ${LOCK_TTL_MS} ms TTL`);
    c.expect(
      st.freedAfterMs !== undefined && st.freedAfterMs <= LOCK_TTL_MS + 2_000,
      `the lock was freed after ${String(st.freedAfterMs)} ms (TTL ${LOCK_TTL_MS} ms)`,
    );
    c.expect(st.ownerAtRelease !== 'chaos-stuck-frontend', 'the stuck frontend still held the lock after its TTL');
  }
  return result(
    'stuck-lock',
    `a frontend holding subscription ${f.stuckSubscription.slice(0, 8)}…'s lock for ${f.profile.phases.stuckLockMs / 1000} s (TTL 10 s)`,
    c,
    figures,
  );
}

export function scenarios(f: RunFacts): ScenarioResult[] {
  return [load(f), cosmosFaults(f), csFaults(f), armDown(f), malformed(f), stuckLock(f)];
}

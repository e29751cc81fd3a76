/**
 * How a simulated cluster or node pool moves through its states. Nothing runs on timers: each
 * object keeps the instants of its transitions (and the durations in force at each one) and its
 * state is derived from them at read time, so tests can step a clock instead of waiting.
 *
 *   create → pending → validating → installing → ready   (or error, when a provision failure is planned)
 *   update (only when ready) → updating → ready
 *   delete → (previous state for deleteStartMs: CS still says e.g. ready) → uninstalling → gone (404)
 *   forced error (admin) → error from that instant until deleted
 */

/** Phase durations in milliseconds. */
export interface Durations {
  /** @defaultValue 500 */
  pendingMs: number;
  /** @defaultValue 500 */
  validatingMs: number;
  /** @defaultValue 3000 */
  installingMs: number;
  /** @defaultValue 2000 */
  updatingMs: number;
  /** How long the previous state is still reported after a DELETE (CS says `ready` while a delete starts). @defaultValue 500 */
  deleteStartMs: number;
  /** @defaultValue 2000 */
  uninstallingMs: number;
}

/**
 * Durations of a cluster's break-glass credentials and external auths. Kept apart from `Durations`,
 * the cluster and node-pool phases that `durationsFor` draws per object: these are the simulator's
 * alone.
 */
export interface SubresourceDurations {
  /** A credential's `created` → `issued` (or `failed`, when planned). @defaultValue 1000 */
  credentialIssueMs: number;
  /** A credential's `awaiting_revocation` → `revoked` (or `failed`, when planned). @defaultValue 1000 */
  credentialRevokeMs: number;
  /** An external auth's `installing` or `updating` → `ready`, and `uninstalling` → gone. @defaultValue 1000 */
  externalAuthMs: number;
}

/** Every duration the simulator keeps (`durations` option, `/_admin/durations`). */
export type SimulatorDurations = Durations & SubresourceDurations;

export const DEFAULT_DURATIONS: Readonly<SimulatorDurations> = Object.freeze({
  pendingMs: 500,
  validatingMs: 500,
  installingMs: 3000,
  updatingMs: 2000,
  deleteStartMs: 500,
  uninstallingMs: 2000,
  credentialIssueMs: 1000,
  credentialRevokeMs: 1000,
  externalAuthMs: 1000,
});

export type Phase = 'pending' | 'validating' | 'installing' | 'ready' | 'updating' | 'uninstalling' | 'error' | 'gone';

export interface Lifecycle {
  readonly createdAt: number;
  /** Durations in force when the object was created. */
  readonly durations: Durations;
  /** Ends in `error` instead of `ready` after installing. */
  readonly failAfterInstall: boolean;
  /** Forced into `error` from this instant. */
  failedAt?: number;
  update?: { readonly startedAt: number; readonly updatingMs: number };
  deletion?: { readonly startedAt: number; readonly deleteStartMs: number; readonly uninstallingMs: number };
}

export function newLifecycle(now: number, durations: Durations, failAfterInstall = false): Lifecycle {
  return { createdAt: now, durations: { ...durations }, failAfterInstall };
}

/** The phase ignoring a deletion in progress. */
function basePhase(l: Lifecycle, now: number): Phase {
  if (l.failedAt !== undefined && now >= l.failedAt) return 'error';
  const d = l.durations;
  const elapsed = now - l.createdAt;
  if (elapsed < d.pendingMs) return 'pending';
  if (elapsed < d.pendingMs + d.validatingMs) return 'validating';
  if (elapsed < d.pendingMs + d.validatingMs + d.installingMs) return 'installing';
  if (l.failAfterInstall) return 'error';
  if (l.update && now < l.update.startedAt + l.update.updatingMs) return 'updating';
  return 'ready';
}

export function phaseAt(l: Lifecycle, now: number): Phase {
  const del = l.deletion;
  if (del && now >= del.startedAt + del.deleteStartMs) {
    return now >= del.startedAt + del.deleteStartMs + del.uninstallingMs ? 'gone' : 'uninstalling';
  }
  return basePhase(l, now);
}

/** Starts an update; only a ready object can be updated (the caller answers 409 otherwise). */
export function startUpdate(l: Lifecycle, now: number, durations: Durations): boolean {
  if (l.deletion || phaseAt(l, now) !== 'ready') return false;
  l.update = { startedAt: now, updatingMs: durations.updatingMs };
  return true;
}

/** Starts a deletion; repeating it changes nothing (DELETE is idempotent). */
export function startDeletion(l: Lifecycle, now: number, durations: Durations): void {
  if (l.deletion) return;
  l.deletion = { startedAt: now, deleteStartMs: durations.deleteStartMs, uninstallingMs: durations.uninstallingMs };
}

/** Every instant at which the phase of `l` may change by itself (as time passes), in no order. */
export function transitionInstants(l: Lifecycle): number[] {
  const d = l.durations;
  const out = [
    l.createdAt + d.pendingMs,
    l.createdAt + d.pendingMs + d.validatingMs,
    l.createdAt + d.pendingMs + d.validatingMs + d.installingMs,
  ];
  if (l.update) out.push(l.update.startedAt + l.update.updatingMs);
  if (l.deletion)
    out.push(l.deletion.startedAt + l.deletion.deleteStartMs, l.deletion.startedAt + l.deletion.deleteStartMs + l.deletion.uninstallingMs);
  return out;
}

import type { Database } from '@azure/cosmos';
import type { ChangeFeedProcessor, ProcessorState } from '@opstream/changefeed';
import type { ReadinessReport } from '../ops/ops-server';

type Check = ReadinessReport['checks'][string];

/**
 * Ready when Cosmos answers, the processor runs, some live instance (this one or another) owns a
 * lease of it, every lease this instance owns made progress recently, and (with `permissions`) no
 * request is being refused for want of a data role. A hung reader makes the instance unready before
 * its watchdog gives the lease up; an identity that may not write leases makes it unready at once.
 */
export async function checkReadiness(deps: {
  database: Database;
  processor: ChangeFeedProcessor;
  stallMs: number;
  timeoutMs?: number;
  /** The permission watch's check (`permission-watch.ts`). */
  permissions?: () => Check;
  /**
   * How many leases the processor has, as last listed (a cached listing): with it, an instance that
   * holds leases answers from memory; without it, every check lists the leases.
   */
  leaseCount?: () => Promise<number>;
}): Promise<ReadinessReport> {
  const checks: ReadinessReport['checks'] = {};
  const timeout = deps.timeoutMs ?? 2000;
  try {
    await deps.database.read({ abortSignal: AbortSignal.timeout(timeout) });
    checks.cosmos = { ok: true, detail: 'reachable' };
  } catch (err) {
    checks.cosmos = { ok: false, detail: (err as Error).message || 'unreachable' };
  }
  if (deps.permissions) checks.permissions = deps.permissions();
  if (checks.cosmos.ok) {
    try {
      // Holding a live lease (one its renewals keep alive: the copy in memory is the last write that
      // succeeded), this instance reads the feed: no listing of every lease per probe, only the count
      // now and then (`leaseCount`). Otherwise the listing says whether any live instance does.
      const held = await deps.processor.getCurrentState({ estimateLag: false, listing: false });
      const count = held.running && held.leases.some((l) => !l.expired) ? deps.leaseCount : undefined;
      const state = count ? held : await deps.processor.getCurrentState({ estimateLag: false });
      checks.changefeed = count ? heldCheck(state, await count()) : leaseCheck(state);
      const now = Date.now();
      const stalled = state.leases.filter(
        (l) => l.ownedByThisInstance && l.lastProgressAt !== undefined && now - l.lastProgressAt > deps.stallMs,
      );
      checks.progress = stalled.length
        ? { ok: false, detail: `no progress on ${stalled.map((l) => l.leaseToken).join(', ')} for over ${deps.stallMs} ms` }
        : { ok: true, detail: 'readers progressing' };
    } catch (err) {
      checks.changefeed = { ok: false, detail: (err as Error).message };
    }
  }
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

/** The processor's part for an instance that holds live leases (`state` lists only its own; `total` as last listed). */
function heldCheck(state: Pick<ProcessorState, 'leases'>, total: number): Check {
  return { ok: true, detail: `${state.leases.length} of ${Math.max(total, state.leases.length)} lease(s) held` };
}

/**
 * The processor's part: running, and some lease owned by a live instance — its owner set and its
 * timestamp within the lease expiration (`expired` false). With every lease released or expired
 * nothing reads the change feed, whoever holds none "legitimately".
 */
export function leaseCheck(state: Pick<ProcessorState, 'running' | 'leases'>): Check {
  if (!state.running) return { ok: false, detail: 'processor not running' };
  const total = state.leases.length;
  const live = state.leases.filter((l) => l.owner !== null && !l.expired);
  if (live.length === 0) {
    return {
      ok: false,
      detail:
        total === 0
          ? 'no lease exists yet: the lease store is not initialised'
          : `no lease is owned by a live instance: all ${total} released or expired, so nothing reads the change feed`,
    };
  }
  const owned = state.leases.filter((l) => l.ownedByThisInstance).length;
  return {
    ok: true,
    detail: owned ? `${owned} of ${total} lease(s) held` : `no lease held here (${live.length} of ${total} held by other live instances)`,
  };
}

import type { Database } from '@azure/cosmos';
import type { ChangeFeedProcessor } from '../changefeed';
import type { ReadinessReport } from '../ops/ops-server';

/**
 * Ready when Cosmos answers, the processor runs (holding leases, or legitimately none while others
 * hold them all), and every lease this instance owns made progress recently. A hung reader makes
 * the instance unready before its watchdog gives the lease up.
 */
export async function checkReadiness(deps: { database: Database; processor: ChangeFeedProcessor; stallMs: number; timeoutMs?: number }): Promise<ReadinessReport> {
  const checks: ReadinessReport['checks'] = {};
  const timeout = deps.timeoutMs ?? 2000;
  try {
    await deps.database.read({ abortSignal: AbortSignal.timeout(timeout) });
    checks.cosmos = { ok: true, detail: 'reachable' };
  } catch (err) {
    checks.cosmos = { ok: false, detail: (err as Error).message || 'unreachable' };
  }
  if (checks.cosmos.ok) {
    try {
      const state = await deps.processor.getCurrentState({ estimateLag: false });
      const owned = state.leases.filter((l) => l.ownedByThisInstance);
      checks.changefeed = state.running
        ? { ok: true, detail: owned.length ? `${owned.length} of ${state.leases.length} lease(s) held` : `no lease held (${state.leases.length} held by others)` }
        : { ok: false, detail: 'processor not running' };
      const now = Date.now();
      const stalled = owned.filter((l) => l.lastProgressAt !== undefined && now - l.lastProgressAt > deps.stallMs);
      checks.progress = stalled.length
        ? { ok: false, detail: `no progress on ${stalled.map((l) => l.leaseToken).join(', ')} for over ${deps.stallMs} ms` }
        : { ok: true, detail: 'readers progressing' };
    } catch (err) {
      checks.changefeed = { ok: false, detail: (err as Error).message };
    }
  }
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

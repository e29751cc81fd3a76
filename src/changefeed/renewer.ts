import type { BackoffPolicy } from './util/backoff';
import { nextDelayMs, sleep } from './util/backoff';
import type { Clock } from './util/clock';
import { ReleaseRequestedError, engineError, isLeaseLost } from './errors';
import { releaseRequestedAt, resetRequested } from './lease/hand-over';
import type { Emit } from './events';
import type { OwnedLease } from './lease/owned-lease';

/**
 * How long to wait before the next renewal: a lease is renewed only when it has not been written
 * (checkpoint or renew) for `leaseRenewIntervalMs`, so a busy range renews through its checkpoints
 * and costs no extra lease-store requests.
 */
export function renewDelayMs(lastWriteAt: number, nowMs: number, leaseRenewIntervalMs: number): number {
  return Math.max(0, lastWriteAt + leaseRenewIntervalMs - nowMs);
}

export interface RenewerDeps {
  owned: OwnedLease;
  clock: Clock;
  leaseRenewIntervalMs: number;
  engineRetry: BackoffPolicy;
  emit: Emit;
  signal: AbortSignal;
}

/**
 * Keeps one lease alive until aborted. Ends by throwing `LeaseLostError` when another instance
 * took the lease or it was deleted, `ReleaseRequestedError` when its hand-over was requested; transient failures are reported and retried (if they last
 * until expiry, another instance takes the lease and the next write here finds it lost).
 */
export async function runRenewer(deps: RenewerDeps): Promise<void> {
  let failures = 0;
  while (!deps.signal.aborted) {
    // Every write (renewal or checkpoint) brings back the stored document: a request is seen at the latest one renewal later.
    const reset = resetRequested(deps.owned.lease);
    if (reset !== undefined) throw new ReleaseRequestedError(deps.owned.leaseToken, undefined, reset);
    const requestedAt = releaseRequestedAt(deps.owned.lease);
    if (requestedAt !== undefined) throw new ReleaseRequestedError(deps.owned.leaseToken, requestedAt);
    const wait = renewDelayMs(deps.owned.lastWriteAt, deps.clock.now(), deps.leaseRenewIntervalMs);
    if (wait > 0) {
      await sleep(wait, deps.signal);
      continue;
    }
    try {
      const renewed = await deps.owned.renew();
      if (renewed.checkpointed !== undefined)
        deps.emit({ type: 'changefeed.checkpoint', leaseToken: deps.owned.leaseToken, continuation: renewed.checkpointed });
      failures = 0;
    } catch (err) {
      if (isLeaseLost(err) || deps.signal.aborted) throw err;
      deps.emit({
        type: 'changefeed.error',
        leaseToken: deps.owned.leaseToken,
        error: engineError('renew lease', err, { leaseToken: deps.owned.leaseToken }),
      });
      await sleep(Math.min(deps.leaseRenewIntervalMs, nextDelayMs(deps.engineRetry, failures++)), deps.signal);
    }
  }
}

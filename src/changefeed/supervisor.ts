import type { Container } from '@azure/cosmos';
import { ChangeFeedError, LeaseLostError, ReaderStalledError, ReleaseRequestedError, engineError, isLeaseLost, messageOf } from './errors';
import type { Emit } from './events';
import type { ChangeFeedHandler, PoisonHandler } from './handler';
import type { SplitDetected } from './feed/range-reader';
import { RangeReader } from './feed/range-reader';
import type { OwnedLease } from './lease/owned-lease';
import type { ResolvedOptions } from './options';
import { runRenewer } from './renewer';

/** Why a supervised lease stopped; exactly one per lease run. */
export type CloseReason =
  | { kind: 'shutdown' }
  | { kind: 'lost'; newOwner: string | null; gone: boolean }
  | { kind: 'split'; split: SplitDetected }
  | { kind: 'stalled' }
  | { kind: 'requested'; resetTo?: { continuation: string | null } }
  | { kind: 'error'; error: ChangeFeedError };

export interface SupervisorDeps<T> {
  feedContainer: Container;
  containerRid: string;
  owned: OwnedLease;
  options: ResolvedOptions;
  handler: ChangeFeedHandler<T>;
  onPoison: PoisonHandler<T>;
  emit: Emit;
}

class Shutdown extends Error {}

/**
 * Ties a lease to its work: runs the range reader and the renewer side by side, plus a watchdog.
 * When either ends (or the watchdog fires, or `stop()` is called) the other is cancelled and one
 * close reason is reported. Shutdown, stall, error and a hand-over request release the lease (after flushing a held-back
 * checkpoint) so another instance takes over at once; a lost lease is left alone; a split is
 * handed back to the caller to replace the lease.
 */
export class LeaseSupervisor<T> {
  private readonly controller = new AbortController();
  private lastProgress: number;
  /** End of the reader's current idle pause (clock ms). */
  private restingUntil = -Infinity;
  private reader?: RangeReader<T>;
  private done?: Promise<CloseReason>;

  constructor(private readonly deps: SupervisorDeps<T>) {
    this.lastProgress = deps.options.clock.now();
  }

  get leaseToken(): string {
    return this.deps.owned.leaseToken;
  }

  get owned(): OwnedLease {
    return this.deps.owned;
  }

  /**
   * Clock time of the last completed read or handler attempt. An idle pause counts as progress
   * until it ends, so a long poll ceiling (with wake-ups) is never taken for a stall.
   */
  get lastProgressAt(): number {
    return Math.max(this.lastProgress, Math.min(this.restingUntil, this.deps.options.clock.now()));
  }

  /** When the reader's current idle pause ends (clock ms), or undefined while it reads or handles. */
  get idleUntil(): number | undefined {
    return this.restingUntil > this.deps.options.clock.now() ? this.restingUntil : undefined;
  }

  /** Reads the range again now instead of after the idle pause (a no-op before `run()`). */
  wake(): void {
    this.reader?.wake();
  }

  /** Starts the lease's work; the promise settles with the close reason once everything stopped. */
  run(): Promise<CloseReason> {
    this.done ??= this.supervise();
    return this.done;
  }

  /** Stops the reader and renewer, releasing the lease (graceful shutdown). */
  stop(): Promise<CloseReason> {
    this.controller.abort(new Shutdown('shutdown'));
    return this.run();
  }

  /** Stops because the balancer saw the lease owned by someone else (or deleted). */
  lose(newOwner: string | null, gone: boolean): void {
    this.controller.abort(new LeaseLostError(this.leaseToken, { newOwner, gone, instanceName: this.deps.options.instanceName }));
  }

  private async supervise(): Promise<CloseReason> {
    const { options, owned } = this.deps;
    const signal = this.controller.signal;
    const reader = new RangeReader<T>({
      ...this.deps,
      signal,
      progress: () => {
        this.lastProgress = options.clock.now();
      },
      resting: (ms) => {
        this.restingUntil = options.clock.now() + ms;
      },
    });
    this.reader = reader;
    const watchdogPeriod = Math.max(10, Math.min(1_000, Math.floor(options.stallTimeoutMs / 4)));
    const watchdog = setInterval(() => {
      if (options.clock.now() - this.lastProgressAt > options.stallTimeoutMs) {
        this.controller.abort(
          new ReaderStalledError(options.stallTimeoutMs, { leaseToken: owned.leaseToken, instanceName: options.instanceName }),
        );
      }
    }, watchdogPeriod);
    watchdog.unref?.();

    const ended = (outcome: Promise<unknown>): Promise<unknown> =>
      outcome.then(
        (value) => {
          this.controller.abort(new Shutdown('sibling ended'));
          return value;
        },
        (err: unknown) => {
          if (!signal.aborted) this.controller.abort(err);
          throw err;
        },
      );
    const readerRun = ended(reader.run());
    const renewerRun = ended(
      runRenewer({
        owned,
        clock: options.clock,
        leaseRenewIntervalMs: options.leaseRenewIntervalMs,
        engineRetry: options.engineRetry,
        emit: this.deps.emit,
        signal,
      }),
    );
    const [readerResult] = await Promise.allSettled([readerRun, renewerRun]);
    clearInterval(watchdog);

    const reason = this.closeReason(readerResult, signal.reason);
    if (reason.kind === 'shutdown' || reason.kind === 'stalled' || reason.kind === 'error' || reason.kind === 'requested') {
      await this.flushAndRelease(reader, reason.kind, reason.kind === 'requested' ? reason.resetTo : undefined);
    } else if (reason.kind === 'lost') {
      this.deps.emit({ type: 'changefeed.lease.lost', leaseToken: owned.leaseToken, newOwner: reason.newOwner, gone: reason.gone });
    }
    return reason;
  }

  private closeReason(readerResult: PromiseSettledResult<unknown>, abortReason: unknown): CloseReason {
    if (readerResult.status === 'fulfilled' && readerResult.value) return { kind: 'split', split: readerResult.value as SplitDetected };
    // The first failure aborted the signal with itself as reason; later failures are consequences.
    const cause = abortReason ?? (readerResult.status === 'rejected' ? readerResult.reason : undefined);
    if (cause instanceof Shutdown) return { kind: 'shutdown' };
    if (isLeaseLost(cause)) return { kind: 'lost', newOwner: cause.newOwner ?? null, gone: cause.gone };
    if (cause instanceof ReleaseRequestedError) return { kind: 'requested', ...(cause.resetTo ? { resetTo: cause.resetTo } : {}) };
    if (cause instanceof ReaderStalledError) {
      this.deps.emit({ type: 'changefeed.error', leaseToken: this.leaseToken, error: cause });
      return { kind: 'stalled' };
    }
    const error = cause instanceof ChangeFeedError ? cause : engineError('lease supervisor', cause, { leaseToken: this.leaseToken });
    this.deps.emit({ type: 'changefeed.error', leaseToken: this.leaseToken, error });
    return { kind: 'error', error };
  }

  /** `resetTo`: a requested reset: the reader's progress is dropped, the lease released with that continuation. */
  private async flushAndRelease(
    reader: RangeReader<T>,
    why: 'shutdown' | 'stalled' | 'error' | 'requested',
    resetTo?: { continuation: string | null },
  ): Promise<void> {
    const { owned, emit, options } = this.deps;
    try {
      if (resetTo) {
        await owned.release({ resetTo: resetTo.continuation });
      } else {
        await reader.flush();
        await owned.release(why === 'requested' ? { handedOver: true } : {});
      }
      emit({ type: 'changefeed.lease.released', leaseToken: owned.leaseToken, reason: why });
    } catch (err) {
      if (isLeaseLost(err)) {
        emit({ type: 'changefeed.lease.lost', leaseToken: owned.leaseToken, newOwner: err.newOwner ?? null, gone: err.gone });
        return;
      }
      options.logger.warn('could not release lease; it will expire', { leaseToken: owned.leaseToken, error: messageOf(err) });
      emit({
        type: 'changefeed.error',
        leaseToken: owned.leaseToken,
        error: engineError('release lease', err, { leaseToken: owned.leaseToken }),
      });
    }
  }
}

/**
 * A held subscription lock. It renews itself (replace with If-Match) before the document's TTL
 * can expire; when a renewal shows the lock is gone (412: replaced by someone else, 404: deleted
 * or expired) or renewals keep failing past the expiry estimate, `signal` aborts with a
 * LockLostError. `release()` deletes the document with If-Match; a 412/404 there is ignored and
 * any other failure only logged (the TTL frees the lock).
 */
import type { Container } from '@azure/cosmos';
import { cosmosStatus } from '../cosmos/errors';
import type { Lock } from '../domain/types';
import { LockLostError, type LockLossReason } from './errors';
import type { ResolvedLockOptions } from './options';
import { expiryEstimateMs, renewalDueMs, type LeaseWrite } from './renewal';

export interface LockWrite {
  readonly etag: string;
  readonly write: LeaseWrite;
}

export class LockHandle {
  private readonly controller = new AbortController();
  private etag: string;
  private write: LeaseWrite;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<void> | undefined;
  private released = false;

  constructor(
    private readonly container: Container,
    /** The lock document as written (lower-cased id). */
    readonly document: Lock,
    first: LockWrite,
    private readonly options: ResolvedLockOptions,
  ) {
    this.etag = first.etag;
    this.write = first.write;
    this.schedule(renewalDueMs(this.write, options.renewMarginMs));
  }

  /** The lock id: the lower-cased subscription id. */
  get id(): string {
    return this.document.id;
  }

  /** Aborts (reason: LockLostError) when the lock is lost. Pass it to the critical section. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get lost(): boolean {
    return this.controller.signal.aborted;
  }

  /** Why the lock was lost, once it was. */
  get lossError(): LockLostError | undefined {
    return this.lost ? (this.controller.signal.reason as LockLostError) : undefined;
  }

  /** The lock document's current etag. */
  get currentEtag(): string {
    return this.etag;
  }

  /** Earliest local instant the lock document may expire if not renewed. */
  get expiresAtEstimateMs(): number {
    return expiryEstimateMs(this.write);
  }

  private schedule(atMs: number): void {
    if (this.released || this.lost) return;
    clearTimeout(this.timer);
    const delay = Math.max(0, atMs - this.options.clock.now());
    this.timer = setTimeout(() => void this.renew(), delay);
    this.timer.unref();
  }

  private markLost(reason: LockLossReason, cause?: unknown): void {
    if (this.lost) return;
    clearTimeout(this.timer);
    const err = new LockLostError(this.id, reason, cause);
    this.options.logger?.warn('subscription lock lost', { lockId: this.id, owner: this.document.owner, reason });
    this.controller.abort(err);
  }

  /** Renews now (it happens on its own; exposed for callers that want to extend before a long step). */
  renew(): Promise<void> {
    if (this.released || this.lost) return Promise.resolve();
    this.inflight ??= this.renewOnce().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async renewOnce(): Promise<void> {
    const sentAtMs = this.options.clock.now();
    try {
      const { resource, etag } = await this.container
        .item(this.id, this.id)
        .replace<Lock>({ ...this.document, ttl: this.options.ttlSeconds }, { accessCondition: { type: 'IfMatch', condition: this.etag } });
      this.etag = etag ?? resource?._etag ?? this.etag;
      this.write = { sentAtMs, tsSeconds: resource?._ts, ttlSeconds: this.options.ttlSeconds };
      this.schedule(renewalDueMs(this.write, this.options.renewMarginMs));
    } catch (err) {
      const status = cosmosStatus(err);
      if (status === 412) return this.markLost('stolen', err);
      if (status === 404) return this.markLost('gone', err);
      const retryAt = this.options.clock.now() + this.options.renewRetryIntervalMs;
      if (retryAt >= this.expiresAtEstimateMs) return this.markLost('expired', err);
      this.options.logger?.warn('subscription lock renewal failed, retrying', {
        lockId: this.id,
        status,
        error: err instanceof Error ? err.message : String(err),
      });
      this.schedule(retryAt);
    }
  }

  /** Stops renewing and deletes the lock document (If-Match). Never throws. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearTimeout(this.timer);
    await this.inflight;
    if (this.lost) return;
    try {
      await this.container.item(this.id, this.id).delete({ accessCondition: { type: 'IfMatch', condition: this.etag } });
    } catch (err) {
      const status = cosmosStatus(err);
      if (status === 412 || status === 404) return;
      this.options.logger?.warn('subscription lock release failed; its TTL will free it', {
        lockId: this.id,
        status,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

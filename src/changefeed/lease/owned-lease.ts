import type { Clock } from '../util/clock';
import type { LeaseDocument } from './lease-document';
import type { LeaseStore } from './lease-store';

/**
 * A lease this instance holds: the freshest copy of its document, and one queue for every write
 * to it (checkpoint, renew, release), so the renewer and the reader never race each other's etag.
 * Any write that finds another Owner throws `LeaseLostError`. A continuation the reader has
 * processed but not written yet (`held`) rides on the next renewal: one lease write, not two.
 */
export class OwnedLease {
  private current: LeaseDocument;
  private queue: Promise<unknown> = Promise.resolve();
  /** Clock time of the last successful write (acquire, renew or checkpoint). */
  lastWriteAt: number;
  lastCheckpointAt?: number;
  /** Processed up to here, not yet written (`checkpointIntervalMs` held it back); undefined: nothing held. */
  private heldContinuation: { token: string | null } | undefined;

  constructor(
    private readonly store: LeaseStore,
    readonly owner: string,
    lease: LeaseDocument,
    private readonly clock: Clock,
  ) {
    this.current = lease;
    this.lastWriteAt = clock.now();
  }

  get lease(): LeaseDocument {
    return this.current;
  }

  get leaseToken(): string {
    return this.current.LeaseToken;
  }

  /** Where the range has been processed to: the held continuation, else the written one. */
  get position(): string | null {
    return this.heldContinuation ? this.heldContinuation.token : (this.current.ContinuationToken ?? null);
  }

  /** The continuation held back for a later write, if any. */
  get held(): string | null | undefined {
    return this.heldContinuation?.token;
  }

  /** Records progress without writing it: the next checkpoint or renewal writes it. */
  hold(continuationToken: string | null): void {
    this.heldContinuation = { token: continuationToken };
  }

  checkpoint(continuationToken: string | null): Promise<LeaseDocument> {
    return this.write(async () => {
      const updated = await this.store.checkpoint(this.current, this.owner, continuationToken);
      this.lastCheckpointAt = this.clock.now();
      if (this.heldContinuation?.token === continuationToken) this.heldContinuation = undefined;
      return updated;
    });
  }

  /**
   * Keeps the lease alive. With a continuation held, the renewal is that checkpoint (it refreshes
   * the timestamp all the same); `checkpointed` says so.
   */
  async renew(): Promise<{ lease: LeaseDocument; checkpointed?: string | null }> {
    const held = this.heldContinuation;
    if (held) return { lease: await this.checkpoint(held.token), checkpointed: held.token };
    return { lease: await this.write(() => this.store.renew(this.current, this.owner)) };
  }

  /**
   * Gives the lease up. `handedOver`: on request, marked so that another instance takes it;
   * `resetTo`: a requested reset, the continuation written with the release (hand-over.ts).
   */
  async release(how: { handedOver?: boolean; resetTo?: string | null } = {}): Promise<void> {
    await this.enqueue(() =>
      this.store.release(this.current, this.owner, {
        ...(how.handedOver ? { handedOverAtMs: this.clock.now() } : {}),
        ...(how.resetTo !== undefined ? { continuation: how.resetTo } : {}),
      }),
    );
  }

  private write(fn: () => Promise<LeaseDocument>): Promise<LeaseDocument> {
    return this.enqueue(async () => {
      const updated = await fn();
      this.current = updated;
      this.lastWriteAt = this.clock.now();
      return updated;
    });
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

import type { Clock } from '../../util/clock';
import type { LeaseDocument } from './lease-document';
import type { LeaseStore } from './lease-store';

/**
 * A lease this instance holds: the freshest copy of its document, and one queue for every write
 * to it (checkpoint, renew, release), so the renewer and the reader never race each other's etag.
 * Any write that finds another Owner throws `LeaseLostError`.
 */
export class OwnedLease {
  private current: LeaseDocument;
  private queue: Promise<unknown> = Promise.resolve();
  /** Clock time of the last successful write (acquire, renew or checkpoint). */
  lastWriteAt: number;
  lastCheckpointAt?: number;

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

  checkpoint(continuationToken: string | null): Promise<LeaseDocument> {
    return this.write(async () => {
      const updated = await this.store.checkpoint(this.current, this.owner, continuationToken);
      this.lastCheckpointAt = this.clock.now();
      return updated;
    });
  }

  renew(): Promise<LeaseDocument> {
    return this.write(() => this.store.renew(this.current, this.owner));
  }

  async release(): Promise<void> {
    await this.enqueue(() => this.store.release(this.current, this.owner));
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

/**
 * In-process turns on a subscription's lock. Without them every section of this instance that
 * wants the same subscription's lock races the others to create the lock document: all but one get
 * a 409 and retry with backoff, a Cosmos request each time (most of the lock attempts the cost
 * benchmark counted). With them, one section of this instance at a time waits for the Cosmos lock;
 * the others wait here, in memory, and when a section ends while others wait, the held lock is
 * handed to the next one instead of being deleted and created again (a delete and a create saved
 * per section). Other holders (the frontend, other instances) still contend through Cosmos as before.
 */
import type { LockHandle } from './lock-handle';

/** What a section gets when its turn comes: the lock handed over by the previous section, if any. */
export interface Turn {
  readonly handedOver: LockHandle | undefined;
}

interface Waiter {
  resolve(turn: Turn): void;
  reject(err: unknown): void;
}

export interface TurnWaitOptions {
  /** Give up waiting after this (the error `onTimeout` returns is thrown). */
  readonly timeoutMs: number;
  readonly onTimeout: () => Error;
  readonly signal?: AbortSignal;
}

export class LocalTurns {
  /** Key → sections waiting behind the one running; a key is present while a section runs. */
  private readonly lines = new Map<string, Waiter[]>();

  /** Waits for this process's turn on `key`. */
  take(key: string, options: TurnWaitOptions): Promise<Turn> {
    options.signal?.throwIfAborted();
    const line = this.lines.get(key);
    if (!line) {
      this.lines.set(key, []);
      return Promise.resolve({ handedOver: undefined });
    }
    return new Promise<Turn>((resolve, reject) => {
      const leave = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        const at = line.indexOf(waiter);
        if (at >= 0) line.splice(at, 1);
      };
      const waiter: Waiter = {
        resolve: (turn) => {
          leave();
          resolve(turn);
        },
        reject: (err) => {
          leave();
          reject(err);
        },
      };
      const onAbort = (): void => waiter.reject(options.signal?.reason);
      const timer = setTimeout(() => waiter.reject(options.onTimeout()), Math.max(0, options.timeoutMs));
      timer.unref();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      line.push(waiter);
    });
  }

  /** Whether a section waits behind the running one on `key`. */
  waiting(key: string): boolean {
    return (this.lines.get(key)?.length ?? 0) > 0;
  }

  /**
   * The running section on `key` is over: the next waiter runs, with `handOver` (a lock still held,
   * which the caller then must not release) or, when undefined, acquiring the lock itself.
   * Returns whether the lock was handed over.
   */
  end(key: string, handOver: LockHandle | undefined): boolean {
    const line = this.lines.get(key);
    const next = line?.[0];
    if (!next) {
      this.lines.delete(key);
      return false;
    }
    next.resolve({ handedOver: handOver });
    return handOver !== undefined;
  }
}

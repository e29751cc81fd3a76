/**
 * The pause between two change feed reads of one range, which a wake-up ends early.
 *
 * A wake that arrives while the reader is reading (not pausing) is kept and skips the next pause:
 * the read in flight may have been sent before the change it announces was written, so one more
 * read follows at once. Several wakes before that read collapse into one.
 *
 * @example
 * const pause = new WakeablePause();
 * await pause.wait(5_000, signal); // returns after 5 s, or as soon as pause.wake() is called
 */
export class WakeablePause {
  private pending = false;
  private release?: () => void;

  /** Ends the current pause, or skips the next one. */
  wake(): void {
    if (this.release) this.release();
    else this.pending = true;
  }

  /** Resolves after `ms`, or at the first `wake()`; rejects with the signal's reason when aborted. */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    if (this.pending || ms <= 0) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.release = undefined;
      };
      const onAbort = (): void => {
        done();
        reject(signal.reason ?? new Error('aborted'));
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      this.release = () => {
        done();
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * At most `limit` ARM notifications in flight at once. A handling that finds every slot taken
 * does not wait for one (it would hold a worker): it parks its operation and is remembered, and
 * each slot that frees wakes one operation waiting for it — a first attempt before a retry (an
 * endpoint that keeps failing does not hold back notifications that may go through), otherwise
 * the one that has waited longest; a woken operation turned away again keeps its place. Endpoints
 * that never answer thus take `limit` of the pipeline's workers at most, and new operations keep
 * the others.
 */
export class NotificationSlots {
  private inFlight = 0;
  /** Operations turned away, in the order they first were; `woken` once a freed slot called them. */
  private readonly firstAttempts = new Map<string, { woken: boolean }>();
  private readonly retries = new Map<string, { woken: boolean }>();

  constructor(
    readonly limit: number,
    private readonly wake: (operationId: string) => void,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`notification slots: limit must be a positive integer (got ${limit})`);
  }

  /** Takes a slot for `operationId`, or remembers it (a retry or not) to wake once one frees. */
  tryTake(operationId: string, retry = false): boolean {
    if (this.inFlight < this.limit) {
      this.inFlight++;
      this.forget(operationId);
      return true;
    }
    const line = retry ? this.retries : this.firstAttempts;
    const waiting = line.get(operationId);
    if (waiting) waiting.woken = false;
    else {
      (retry ? this.firstAttempts : this.retries).delete(operationId);
      line.set(operationId, { woken: false });
    }
    return false;
  }

  /** Gives a slot back and wakes the next operation waiting for one. */
  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    for (const line of [this.firstAttempts, this.retries]) {
      for (const [id, waiting] of line) {
        if (waiting.woken) continue;
        waiting.woken = true;
        this.wake(id);
        return;
      }
    }
  }

  /** The operation no longer waits here (it took a slot, is done, or its lease is gone). */
  forget(operationId: string): void {
    this.firstAttempts.delete(operationId);
    this.retries.delete(operationId);
  }

  get busy(): number {
    return this.inFlight;
  }

  get waitingCount(): number {
    return this.firstAttempts.size + this.retries.size;
  }
}

/**
 * At most `limit` ARM notifications in flight at once. A handling that finds every slot taken
 * does not wait for one (it would hold a worker): it parks its operation and is remembered, and
 * the next slot to free wakes the longest-waiting such operation. Endpoints that never answer thus
 * take `limit` of the pipeline's workers at most, and new operations keep the others.
 */
export class NotificationSlots {
  private inFlight = 0;
  /** Operations turned away, oldest first. */
  private readonly waiting = new Set<string>();

  constructor(
    readonly limit: number,
    private readonly wake: (operationId: string) => void,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`notification slots: limit must be a positive integer (got ${limit})`);
  }

  /** Takes a slot for `operationId`, or remembers it to wake once one frees. */
  tryTake(operationId: string): boolean {
    if (this.inFlight >= this.limit) {
      this.waiting.add(operationId);
      return false;
    }
    this.inFlight++;
    this.waiting.delete(operationId);
    return true;
  }

  /** Gives a slot back and wakes the operation that has waited longest for one. */
  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const next = this.waiting.values().next();
    if (next.done) return;
    this.waiting.delete(next.value);
    this.wake(next.value);
  }

  /** The operation no longer waits here (done, or its lease is gone). */
  forget(operationId: string): void {
    this.waiting.delete(operationId);
  }

  get busy(): number {
    return this.inFlight;
  }

  get waitingCount(): number {
    return this.waiting.size;
  }
}

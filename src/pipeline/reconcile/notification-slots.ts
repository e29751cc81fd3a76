/** An operation turned away, waiting for a slot to its origin. */
interface Waiting {
  readonly origin: string;
  woken: boolean;
}

/**
 * At most `limit` ARM notifications in flight at once, and at most half of them (rounded up) to one
 * origin (scheme, host and port), as an HTTP agent bounds its sockets per host. A handling that
 * finds no slot it may take does not wait for one (it would hold a worker): it parks its operation
 * and is remembered, and each slot that frees wakes one operation waiting for it whose origin has
 * room — a first attempt before a retry (an endpoint that keeps failing does not hold back
 * notifications that may go through), otherwise the one that has waited longest; a woken operation
 * turned away again keeps its place. Endpoints that never answer thus take `limit` of the
 * pipeline's workers at most, new operations keep the others, and one origin that never answers
 * cannot hold every slot while notifications to another wait behind it.
 */
export class NotificationSlots {
  private inFlight = 0;
  private readonly inFlightByOrigin = new Map<string, number>();
  /** Operations turned away, in the order they first were; `woken` once a freed slot called them. */
  private readonly firstAttempts = new Map<string, Waiting>();
  private readonly retries = new Map<string, Waiting>();
  /** Slots one origin may hold at once. */
  readonly perOrigin: number;

  constructor(
    readonly limit: number,
    private readonly wake: (operationId: string) => void,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`notification slots: limit must be a positive integer (got ${limit})`);
    this.perOrigin = Math.ceil(limit / 2);
  }

  private hasRoom(origin: string): boolean {
    return this.inFlight < this.limit && (this.inFlightByOrigin.get(origin) ?? 0) < this.perOrigin;
  }

  /** Takes a slot for `operationId`'s attempt to `origin`, or remembers it (a retry or not) to wake once one frees. */
  tryTake(operationId: string, origin: string, retry = false): boolean {
    if (this.hasRoom(origin)) {
      this.inFlight++;
      this.inFlightByOrigin.set(origin, (this.inFlightByOrigin.get(origin) ?? 0) + 1);
      this.forget(operationId);
      return true;
    }
    const line = retry ? this.retries : this.firstAttempts;
    const waiting = line.get(operationId);
    if (waiting) waiting.woken = false;
    else {
      (retry ? this.firstAttempts : this.retries).delete(operationId);
      line.set(operationId, { origin, woken: false });
    }
    return false;
  }

  /** Gives back a slot taken for `origin` and wakes the next operation waiting for one it may take. */
  release(origin: string): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const held = (this.inFlightByOrigin.get(origin) ?? 1) - 1;
    if (held > 0) this.inFlightByOrigin.set(origin, held);
    else this.inFlightByOrigin.delete(origin);
    for (const line of [this.firstAttempts, this.retries]) {
      for (const [id, waiting] of line) {
        if (waiting.woken || !this.hasRoom(waiting.origin)) continue;
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

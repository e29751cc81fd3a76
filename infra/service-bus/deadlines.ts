/**
 * One timer for every deadline of the broker (lock expiry, message TTL, session locks, scheduled
 * messages): a binary min-heap checked by a single timer armed at the earliest deadline. Entries are
 * never removed early; the callback re-checks whether its deadline still holds.
 */
export class Deadlines {
  private heap: { at: number; fn: () => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;
  private stopped = false;

  constructor(private readonly now: () => number = Date.now) {}

  add(at: number, fn: () => void): void {
    if (!Number.isFinite(at) || this.stopped) return;
    const h = this.heap;
    h.push({ at, fn });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p].at <= h[i].at) break;
      [h[p], h[i]] = [h[i], h[p]];
      i = p;
    }
    if (at < this.armedAt) this.arm();
  }

  private pop(): { at: number; fn: () => void } | undefined {
    const h = this.heap;
    if (!h.length) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l].at < h[m].at) m = l;
        if (r < h.length && h[r].at < h[m].at) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
    if (!this.heap.length || this.stopped) return;
    const at = this.heap[0].at;
    this.armedAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.min(at - this.now(), 2 ** 31 - 1)));
    this.timer.unref();
  }

  /** Runs every callback that is due (also called by tests with a fake clock). */
  fire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = this.now();
    while (this.heap.length && this.heap[0].at <= now) this.pop()!.fn();
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.heap = [];
  }
}

import type { TimerClock } from '../../src/util/clock';

/** A clock whose time and timers only move when the test says so; `advance` fires what falls due, in time order. */
export class ManualTimers implements TimerClock {
  private current = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.current;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.current + Math.max(0, ms), fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  get scheduled(): number {
    return this.pending.size;
  }
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      let nextId: number | undefined;
      let nextAt = Infinity;
      for (const [id, t] of this.pending) if (t.at <= target && t.at < nextAt) [nextId, nextAt] = [id, t.at];
      if (nextId === undefined) break;
      const t = this.pending.get(nextId)!;
      this.pending.delete(nextId);
      this.current = Math.max(this.current, t.at);
      t.fn();
    }
    this.current = target;
    await flushMicrotasks();
  }
}

export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

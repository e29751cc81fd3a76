import { Deadlines } from './deadlines';

/** When an entity was created, last changed and last used: what the administration API reports. */
export interface EntityTimes {
  createdAt: number;
  updatedAt: number;
  accessedAt: number;
}

/** What the clock asks of the namespace about an entity (by lower-cased path). */
export interface IdleEntities {
  /** AutoDeleteOnIdle in ms (Infinity: never), undefined once the entity is gone */
  idleMs(key: string): number | undefined;
  /** a receiver holding locks or a session keeps its entity in use */
  busy(key: string): boolean;
  remove(key: string): void;
}

/**
 * Creation, change and use times of queues, topics and subscriptions, and auto-delete on idle: an entity
 * nothing touched for its AutoDeleteOnIdle is removed, checked at that deadline.
 */
export class EntityClock {
  private readonly times = new Map<string, EntityTimes>();

  constructor(
    private readonly deadlines: Deadlines,
    private readonly now: () => number,
    private readonly entities: IdleEntities,
  ) {}

  born(key: string, idleMs: number): void {
    const now = this.now();
    this.times.set(key, { createdAt: now, updatedAt: now, accessedAt: now });
    this.watch(key, idleMs);
  }

  /** A send, a receive or a change: the entity is not idle (auto-delete-on-idle starts again). */
  touch(key: string, changed = false): void {
    const t = this.times.get(key);
    if (!t) return;
    t.accessedAt = this.now();
    if (changed) t.updatedAt = t.accessedAt;
  }

  /** Arms (again) the idle check, e.g. after AutoDeleteOnIdle changed. */
  watch(key: string, idleMs: number): void {
    const t = this.times.get(key);
    if (!t || !Number.isFinite(idleMs)) return;
    this.deadlines.add(t.accessedAt + idleMs, () => {
      if (this.times.get(key) !== t) return; // deleted, or deleted and made again
      const current = this.entities.idleMs(key);
      if (current === undefined || !Number.isFinite(current)) return;
      if (this.entities.busy(key) || t.accessedAt + current > this.now()) return this.watch(key, current);
      this.entities.remove(key);
    });
  }

  get(key: string): EntityTimes | undefined {
    return this.times.get(key);
  }

  /** Forgets an entity (and, for a topic, its subscriptions). */
  forget(key: string): void {
    this.times.delete(key);
    for (const k of [...this.times.keys()]) if (k.startsWith(`${key}/subscriptions/`)) this.times.delete(k);
  }

  clear(): void {
    this.times.clear();
  }

  /** When the first entity still here was made (the namespace's creation time as reported). */
  earliest(): number {
    return Math.min(this.now(), ...[...this.times.values()].map((t) => t.createdAt));
  }
}

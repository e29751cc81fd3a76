/**
 * At most one PATCH per resource within `cooldownMs` (`follow.updateCooldownMs`): Clusters Service
 * is not asked to start over an update it may still be taking in, and a difference that stays (CS
 * ready but not at the desired state) is re-sent at that pace, not on every look. Kept in memory: a
 * lease moving to another instance may let one PATCH through early, which a PATCH of the same desired
 * state tolerates.
 */
export class UpdateCooldown {
  /** Resource href → when its last PATCH went out. */
  private readonly sentAt = new Map<string, number>();

  constructor(
    private readonly cooldownMs: number,
    private readonly now: () => number,
  ) {}

  /** How long until a PATCH of `href` may go out: 0 = now. */
  remainingMs(href: string): number {
    const at = this.sentAt.get(href);
    return at === undefined ? 0 : Math.max(0, at + this.cooldownMs - this.now());
  }

  /** A PATCH of `href` went out now. Entries past their cooldown are dropped so the map stays small. */
  record(href: string): void {
    const now = this.now();
    for (const [key, at] of this.sentAt) if (at + this.cooldownMs <= now) this.sentAt.delete(key);
    this.sentAt.set(href, now);
  }
}

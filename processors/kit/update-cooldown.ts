/**
 * At most one PATCH per resource within `cooldownMs` (`follow.updateCooldownMs`), for the re-sends
 * of a difference Clusters Service left (ready, but not at the desired state). A dispatch sends at
 * once: it writes Updating right after its PATCH, so the Operation's `lastTransitionTime` says when
 * that PATCH went out, and a re-send waits the cooldown from there whatever instance looks; later
 * re-sends are paced from this instance's memory as well (like the follow's own pacing). CS itself
 * takes a PATCH only while the object is ready, so a new Update waits for the one before it.
 */
export class UpdateCooldown {
  /** Resource href → when this instance last sent it a PATCH. */
  private readonly sentAt = new Map<string, number>();

  constructor(
    private readonly cooldownMs: number,
    private readonly now: () => number,
  ) {}

  /** How long until a PATCH of `href` may go out again (0 = now), the last one known to have gone out at `sentAt` or later. */
  remainingMs(href: string, sentAt: number): number {
    const last = Math.max(sentAt, this.sentAt.get(href) ?? -Infinity);
    return Math.max(0, last + this.cooldownMs - this.now());
  }

  /** A PATCH of `href` went out now. Entries past their cooldown are dropped so the map stays small. */
  record(href: string): void {
    const now = this.now();
    for (const [key, at] of this.sentAt) if (at + this.cooldownMs <= now) this.sentAt.delete(key);
    this.sentAt.set(href, now);
  }
}

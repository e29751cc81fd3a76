import { Subscription } from 'rxjs';
import type { TapRegistry } from '../ops/taps';

/**
 * What the live page shows, kept from the taps (no Cosmos reads): the latest status of every
 * operation this instance saw, transitions per second over the last 10 s, reaction latency
 * percentiles over the last 1,000 operations, the latest dead letters, and the latest ARM
 * notification attempts (delivered, failed, given up: which attempt, ARM's HTTP status) with counts.
 */

/** One ARM notification attempt or give-up, as the live page lists it. */
interface NotificationRow {
  at: string;
  operationId: string;
  resourceId: string;
  outcome: 'delivered' | 'failed' | 'given-up';
  attempt?: number;
  httpStatus?: number;
  reason?: string;
}
export class LiveSummary {
  private readonly latest = new Map<string, string>();
  private readonly transitionTimes: number[] = [];
  private readonly reactions: number[] = [];
  private readonly deadLetters: Array<{ at: string; documentId: string; reason: string; error: string }> = [];
  private readonly notifications: NotificationRow[] = [];
  private readonly notificationCounts = { delivered: 0, failed: 0, givenUp: 0 };
  private readonly subscription = new Subscription();

  constructor(
    taps: TapRegistry,
    private readonly now: () => number = Date.now,
  ) {
    this.subscription.add(
      taps.tap<{ operationId?: string; status?: string; reactionMs?: number }>('operations').subscribe((e) => {
        if (e.data.operationId && e.data.status) this.remember(e.data.operationId, e.data.status);
      }),
    );
    this.subscription.add(
      taps.tap<{ operationId?: string; status?: string }>('transitions').subscribe((e) => {
        if (e.data.operationId && e.data.status) this.remember(e.data.operationId, e.data.status);
        this.transitionTimes.push(this.now());
        if (this.transitionTimes.length > 10_000) this.transitionTimes.shift();
      }),
    );
    this.subscription.add(
      taps.tap<{ reactionMs?: number }>('active').subscribe((e) => {
        if (typeof e.data.reactionMs !== 'number') return;
        this.reactions.push(e.data.reactionMs);
        if (this.reactions.length > 1000) this.reactions.shift();
      }),
    );
    this.subscription.add(
      taps.tap<{ operationId?: string; reason?: string; error?: string }>('dead-letters').subscribe((e) => {
        this.deadLetters.unshift({
          at: e.at,
          documentId: String(e.data.operationId ?? '?'),
          reason: String(e.data.reason ?? ''),
          error: String(e.data.error ?? ''),
        });
        if (this.deadLetters.length > 20) this.deadLetters.pop();
      }),
    );
    this.subscription.add(taps.tap<Record<string, unknown>>('notifications').subscribe((e) => this.noteNotification(e.at, e.data)));
  }

  private noteNotification(at: string, data: Record<string, unknown>): void {
    const outcome = data.givenUp === true ? 'given-up' : data.delivered === true ? 'delivered' : 'failed';
    this.notificationCounts[outcome === 'given-up' ? 'givenUp' : outcome] += 1;
    this.notifications.unshift({
      at,
      operationId: String(data.operationId ?? '?'),
      resourceId: String(data.resourceId ?? ''),
      outcome,
      ...(typeof data.attempt === 'number' ? { attempt: data.attempt } : {}),
      ...(typeof data.httpStatus === 'number' ? { httpStatus: data.httpStatus } : {}),
      ...(typeof data.reason === 'string' ? { reason: data.reason } : {}),
    });
    if (this.notifications.length > 20) this.notifications.pop();
  }

  snapshot(): {
    operationsByStatus: Record<string, number>;
    transitionsPerSecond: number;
    latencyMs: Record<string, number | null>;
    deadLetters: LiveSummary['deadLetters'];
    notifications: { delivered: number; failed: number; givenUp: number; latest: NotificationRow[] };
  } {
    const byStatus: Record<string, number> = {};
    for (const s of this.latest.values()) byStatus[s] = (byStatus[s] ?? 0) + 1;
    const since = this.now() - 10_000;
    while (this.transitionTimes.length && this.transitionTimes[0] < since) this.transitionTimes.shift();
    const sorted = [...this.reactions].sort((a, b) => a - b);
    const pct = (p: number): number | null => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null);
    return {
      operationsByStatus: byStatus,
      transitionsPerSecond: this.transitionTimes.length / 10,
      latencyMs: { 'reaction p50': pct(0.5), 'reaction p99': pct(0.99), 'reaction max': sorted.length ? sorted[sorted.length - 1] : null },
      deadLetters: [...this.deadLetters],
      notifications: { ...this.notificationCounts, latest: [...this.notifications] },
    };
  }

  close(): void {
    this.subscription.unsubscribe();
  }

  private remember(id: string, status: string): void {
    this.latest.delete(id);
    this.latest.set(id, status);
    if (this.latest.size > 50_000) this.latest.delete(this.latest.keys().next().value as string);
  }
}

/**
 * The Leases container read from outside: owners of the change-feed leases, polled, and the
 * takeover time after a kill = from the SIGKILL to the moment every lease the killed instance held
 * has a new owner. The instant of a new ownership is the lease's own `timestamp` (the acquiring
 * write), read at the first poll that shows the new owner.
 */
import type { Container } from '@azure/cosmos';
import { retrying, sleep } from './util';

export interface LeaseRow {
  readonly id: string;
  readonly LeaseToken: string;
  readonly Owner: string | null;
  readonly timestamp: string;
}

export interface Takeover {
  readonly victim: string;
  readonly killAt: number;
  /** Leases the victim held at the kill. */
  readonly leases: number;
  /** Kill → last of them owned by another instance (undefined when none was taken over). */
  readonly takeoverMs: number | undefined;
  /** Some lease still had no new owner at the timeout. */
  readonly timedOut: boolean;
  /** Leases that vanished meanwhile (a split replaced them). */
  readonly vanished: number;
}

export class LeaseWatch {
  private latest: LeaseRow[] = [];
  private stopped = false;
  private loop: Promise<void> | undefined;
  readonly takeovers: Takeover[] = [];
  private readonly pending = new Set<Promise<void>>();
  /** Most leases seen at once (a split adds one). */
  maxLeases = 0;

  constructor(
    private readonly leases: Container,
    private readonly intervalMs = 100,
  ) {}

  async read(): Promise<LeaseRow[]> {
    const { resources } = await retrying(
      () =>
        this.leases.items
          .query<LeaseRow>('SELECT c.id, c.LeaseToken, c.Owner, c.timestamp FROM c WHERE IS_DEFINED(c.LeaseToken)')
          .fetchAll(),
      10_000,
    );
    this.latest = resources;
    this.maxLeases = Math.max(this.maxLeases, resources.length);
    return resources;
  }

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.read().catch(() => undefined);
        await sleep(this.intervalMs);
      }
    })();
  }

  /** The leases as last read. */
  current(): readonly LeaseRow[] {
    return this.latest;
  }

  /** Lease count per owner (null owners left out). */
  owners(): Map<string, number> {
    const out = new Map<string, number>();
    for (const l of this.latest) if (l.Owner) out.set(l.Owner, (out.get(l.Owner) ?? 0) + 1);
    return out;
  }

  /** Follows the leases `victim` held (per `before`) until each has another owner, up to `timeoutMs`. */
  track(victim: string, killAt: number, before: readonly LeaseRow[], timeoutMs: number): void {
    const tokens = new Set(before.filter((l) => l.Owner === victim).map((l) => l.id));
    if (tokens.size === 0) return;
    const done = (async () => {
      const takenAt = new Map<string, number>();
      let vanished = 0;
      const deadline = killAt + timeoutMs;
      while (takenAt.size + vanished < tokens.size && Date.now() < deadline && !this.stopped) {
        await sleep(this.intervalMs);
        const seenAt = Date.now();
        const now = new Map(this.latest.map((l) => [l.id, l]));
        vanished = 0;
        for (const id of tokens) {
          if (takenAt.has(id)) continue;
          const lease = now.get(id);
          if (!lease) {
            vanished++;
            continue;
          }
          if (lease.Owner !== null && lease.Owner !== victim) {
            const written = Date.parse(lease.timestamp);
            takenAt.set(id, Number.isFinite(written) && written >= killAt ? Math.min(written, seenAt) : seenAt);
          }
        }
      }
      this.takeovers.push({
        victim,
        killAt,
        leases: tokens.size,
        takeoverMs: takenAt.size > 0 ? Math.max(...takenAt.values()) - killAt : undefined,
        timedOut: takenAt.size + vanished < tokens.size,
        vanished,
      });
    })();
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
  }

  /** Resolves once every takeover being followed has ended (taken over, or timed out). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  /** Waits for the takeovers being followed, then stops polling. */
  async stop(): Promise<void> {
    await Promise.all([...this.pending]);
    this.stopped = true;
    await this.loop;
  }
}

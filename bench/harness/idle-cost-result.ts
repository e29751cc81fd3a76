/** What bench/idle-cost.ts measures, as it writes it to JSON and renders it. */
import type { CounterSnapshot } from '@opstream/cosmos-emulator';

export interface PolicyResult {
  readonly key: string;
  readonly label: string;
  /** The default opstream ships. */
  readonly chosen?: true;
  /** Acknowledged write of a new operation → its delivery to the handler, ms. */
  readonly reaction: { n: number; p50: number; p90: number; p99: number; max: number };
  /** Per range per second over the quiet spell, from the emulator's counters. */
  readonly idle: { changeFeedPerRange: number; leasePerRange: number; totalPerRange: number; ruPerRange: number };
  /** Every request per range per second while the bursts were replayed. */
  readonly busyPerRange: number;
}

/** One quiet window of `opstream run`: requests per range per second, from the emulator's counters. */
export interface RunIdleWindow {
  readonly seconds: number;
  readonly totalPerRange: number;
  readonly changeFeedPerRange: number;
  readonly leasePerRange: number;
  /** Everything else: relists, metadata, the containers' checks, the probes' database reads. */
  readonly otherPerRange: number;
  readonly ruPerRange: number;
  /** Requests by container over the spell (`-`: account and database requests). */
  readonly byContainer: Record<string, number>;
}

/** `opstream run` with its defaults on idle ranges: alone, then (`probed`) under the deploy's probes and scrapes. */
export interface RunIdle extends RunIdleWindow {
  readonly ranges: number;
  /** A second window with /readyz and /healthz every 10 s and /metrics every 30 s (runs before it had none). */
  readonly probed?: RunIdleWindow;
}

export interface IdleCostResult {
  readonly date: string;
  readonly machine: string;
  readonly shape: {
    durationMs: number;
    meanBurstGapMs: number;
    seed: number;
    writes: number;
    operations: number;
    ranges: number;
    idleSeconds: number;
    /** The lease timing every system ran with (the defaults of the run's commit; absent: 10 s and 30 s, the defaults before 2026-12-06). */
    leaseRenewIntervalMs?: number;
    leaseExpirationMs?: number;
  };
  readonly policies: readonly PolicyResult[];
  readonly run: RunIdle;
}

/** One container's requests from the emulator's counters: all of them, and its change-feed reads. */
export function requestsOf(counters: CounterSnapshot, container: string): { all: number; changeFeed: number } {
  const r = counters.byContainer[container]?.requests ?? {};
  const all = Object.values(r).reduce<number>((s, n) => s + (n ?? 0), 0);
  return { all, changeFeed: (r.changeFeed200 ?? 0) + (r.changeFeed304 ?? 0) + (r.changeFeedOther ?? 0) };
}

/**
 * Everything a chaos run fixes, for the two modes: `full` (the benchmark of issue 11) and `quick`
 * (the same faults, shorter, under 3 minutes on a loaded 2-core machine; CI runs it).
 * Durations are milliseconds.
 */
export interface ChaosProfile {
  readonly mode: 'quick' | 'full';
  /** Operations the frontend issues (creates, updates, deletes of clusters and node pools). */
  readonly operations: number;
  readonly subscriptions: number;
  /** Lifecycles running at once (each issues its next step when the previous one is terminal). */
  readonly concurrency: number;
  /** opstream instances sharing the leases. */
  readonly instances: number;
  /** One instance killed with SIGKILL (and restarted) every this often. */
  readonly killEveryMs: number;
  /** Lease settings passed to every instance. */
  readonly lease: { readonly expirationMs: number; readonly renewMs: number; readonly acquireMs: number };
  /** OPSTREAM_CLUSTERS_SERVICE_TIMEOUT_MS of the instances; a latency fault goes beyond it. */
  readonly csTimeoutMs: number;
  /** Phases, in order (see schedule.ts). */
  readonly phases: {
    readonly warmMs: number;
    readonly cosmosFaultsMs: number;
    readonly cs5xxMs: number;
    readonly csLatencyMs: number;
    readonly csDropResponseMs: number;
    readonly csDownMs: number;
    readonly armDownMs: number;
    /** How long the stuck frontend holds the subscription lock (past its 10 s TTL). */
    readonly stuckLockMs: number;
  };
  /** Malformed documents: at least one of every kind, and at least this share of `operations`. */
  readonly malformedShare: number;
  /** A range is stalled when its lag does not fall for this long while it has lag. */
  readonly stallWindowMs: number;
  /** How long the load may go on after the fault schedule to issue all its operations. */
  readonly loadTailMs: number;
  /** Upper bound of the wait for every operation to be terminal (and notified) after the load. */
  readonly drainTimeoutMs: number;
  /** Emulator partitions (one lease per range). */
  readonly partitions: number;
}

export const QUICK: ChaosProfile = {
  mode: 'quick',
  operations: 300,
  subscriptions: 8,
  concurrency: 32,
  instances: 3,
  killEveryMs: 20_000,
  lease: { expirationMs: 3_000, renewMs: 1_000, acquireMs: 500 },
  csTimeoutMs: 2_000,
  phases: {
    warmMs: 5_000,
    cosmosFaultsMs: 15_000,
    cs5xxMs: 8_000,
    csLatencyMs: 8_000,
    csDropResponseMs: 8_000,
    csDownMs: 12_000,
    armDownMs: 12_000,
    stuckLockMs: 14_000,
  },
  malformedShare: 0.01,
  stallWindowMs: 20_000,
  loadTailMs: 10_000,
  drainTimeoutMs: 40_000,
  partitions: 4,
};

export const FULL: ChaosProfile = {
  mode: 'full',
  operations: 5_000,
  subscriptions: 10,
  concurrency: 64,
  instances: 3,
  killEveryMs: 10_000,
  lease: { expirationMs: 3_000, renewMs: 1_000, acquireMs: 500 },
  csTimeoutMs: 2_000,
  phases: {
    warmMs: 20_000,
    cosmosFaultsMs: 60_000,
    cs5xxMs: 30_000,
    csLatencyMs: 30_000,
    csDropResponseMs: 30_000,
    csDownMs: 60_000,
    armDownMs: 60_000,
    stuckLockMs: 25_000,
  },
  malformedShare: 0.01,
  stallWindowMs: 60_000,
  loadTailMs: 300_000,
  drainTimeoutMs: 240_000,
  partitions: 4,
};

/** CS simulator phase durations: an operation takes about a second in CS. */
export const CS_DURATIONS = {
  pendingMs: 100,
  validatingMs: 100,
  installingMs: 400,
  updatingMs: 300,
  deleteStartMs: 100,
  uninstallingMs: 300,
};

/** Total planned length of the fault schedule (the load is paced to last about as long). */
export function scheduleMs(p: ChaosProfile): number {
  const f = p.phases;
  // The emulator restart takes a few seconds more; the stuck lock runs beside the ARM outage.
  return (
    f.warmMs + f.cosmosFaultsMs + 5_000 + f.cs5xxMs + f.csLatencyMs + f.csDropResponseMs + f.csDownMs + Math.max(f.armDownMs, f.stuckLockMs)
  );
}

/**
 * Change-feed lag per lease, read from outside (the Leases container and one change-feed read per
 * lease, as `opstream lag` and the .NET estimator do), sampled during the whole run; and the
 * stalls found in the samples: a range is stalled when its lag does not fall for `windowMs` while
 * it has lag.
 */
import type { Container } from '@azure/cosmos';
import { readLeaseReport } from '../../src/inspect/lease-report';
import { sleep } from './util';

export interface LagSample {
  readonly at: number;
  readonly lease: string;
  readonly lag: number;
  readonly owner: string | null;
  /** The lease's checkpoint (raw etag) at the sample. */
  readonly checkpoint: string | null;
}

export interface Stall {
  readonly lease: string;
  readonly from: number;
  /** Last sample of the episode (lag still not below its value at `from`). */
  readonly to: number;
  readonly lagAtStart: number;
  readonly lagAtEnd: number;
  /** Distinct checkpoints and owners seen during the episode (1 checkpoint: the reader did not move at all). */
  readonly checkpoints: number;
  readonly owners: readonly string[];
}

export class LagMonitor {
  readonly samples: LagSample[] = [];
  /** Sampling rounds that failed (Cosmos down, faults). */
  failedRounds = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly deps: { feedContainer: Container; leaseContainer: Container; processorName: string; leaseExpirationMs: number },
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        const started = Date.now();
        try {
          const report = await readLeaseReport({ ...this.deps, estimateLag: true });
          for (const l of report.leases) {
            if (l.lag !== null)
              this.samples.push({ at: started, lease: l.leaseToken, lag: l.lag, owner: l.owner, checkpoint: l.continuation });
          }
        } catch {
          this.failedRounds++;
        }
        await sleep(Math.max(0, this.intervalMs - (Date.now() - started)));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** Highest lag seen per lease. */
  maxLag(): Map<string, number> {
    const out = new Map<string, number>();
    for (const s of this.samples) out.set(s.lease, Math.max(out.get(s.lease) ?? 0, s.lag));
    return out;
  }
}

/**
 * Stall episodes: a sample with lag L > 0 such that every later sample up to `windowMs` after it
 * (and at least one sample at or past that point) has lag ≥ L. Overlapping episodes of one lease
 * are merged.
 */
export function findStalls(samples: readonly LagSample[], windowMs: number): Stall[] {
  const byLease = new Map<string, LagSample[]>();
  for (const s of samples) {
    const series = byLease.get(s.lease) ?? [];
    series.push(s);
    byLease.set(s.lease, series);
  }
  const stalls: Stall[] = [];
  for (const [lease, series] of byLease) {
    series.sort((a, b) => a.at - b.at);
    let open: { from: number; to: number; lagAtStart: number; lagAtEnd: number } | undefined;
    const close = (e: { from: number; to: number; lagAtStart: number; lagAtEnd: number }): void => {
      const during = series.filter((x) => x.at >= e.from && x.at <= e.to);
      stalls.push({
        lease,
        ...e,
        checkpoints: new Set(during.map((x) => x.checkpoint)).size,
        owners: [...new Set(during.map((x) => x.owner ?? 'none'))],
      });
    };
    for (let i = 0; i < series.length; i++) {
      const start = series[i];
      if (start.lag <= 0) continue;
      let j = i + 1;
      while (j < series.length && series[j].lag >= start.lag && series[j].at < start.at + windowMs) j++;
      if (j >= series.length || series[j].lag < start.lag) continue; // fell within the window, or the run ended first
      // series[j] is at or past the window and still not below: stalled from start to j (and beyond while not falling)
      let k = j;
      while (k + 1 < series.length && series[k + 1].lag >= start.lag) k++;
      const episode = { from: start.at, to: series[k].at, lagAtStart: start.lag, lagAtEnd: series[k].lag };
      if (open && episode.from <= open.to)
        open = { ...open, to: Math.max(open.to, episode.to), lagAtEnd: episode.to >= open.to ? episode.lagAtEnd : open.lagAtEnd };
      else {
        if (open) close(open);
        open = episode;
      }
    }
    if (open) close(open);
  }
  return stalls;
}

export interface FirstCheckLearnerOptions {
  /** Share of first checks that should find the operation finished (0 < r < 1). @defaultValue 0.8 */
  hitRatio: number;
  /** Delay used for a kind not seen yet. */
  startMs: number;
  minMs: number;
  maxMs: number;
  /** Size of one adjustment on the log scale once settled: larger follows changes faster and jitters more. @defaultValue 0.3 */
  step?: number;
  /** Size of the first adjustment of a kind; the n-th is `coldStep / √n`, never below `step`. @defaultValue 2 */
  coldStep?: number;
}

/**
 * Learns, per kind of operation (e.g. "node pool Update"), how long to wait after a dispatch
 * before the first status check, so that the first check usually finds Clusters Service done.
 *
 * Checking right after a dispatch and backing off spends most calls on "still installing"; the
 * polling backend spends one call per pass but reacts up to a pass late. Instead the delay tracks a
 * quantile of the durations this instance has seen, without ever measuring a duration: each first
 * check that finds CS done shortens the delay a little, each miss lengthens it more, so that at
 * equilibrium a `hitRatio` share of first checks hit (stochastic approximation of a quantile, on a
 * log scale). Steps start large and shrink with the observations of the kind (decreasing gain, as
 * stochastic approximation wants), so a fresh instance finds its footing in a few operations and
 * then holds steady. The delay stays within [minMs, maxMs]: the ceiling is the follow's own, so the
 * completion lag stays bounded by it however long operations take.
 */
export class FirstCheckLearner {
  private readonly delays = new Map<string, number>();
  private readonly observed = new Map<string, number>();
  private readonly step: number;
  private readonly coldStep: number;

  constructor(private readonly options: FirstCheckLearnerOptions) {
    if (!(options.hitRatio > 0 && options.hitRatio < 1))
      throw new RangeError(`hitRatio must be between 0 and 1 (exclusive), got ${options.hitRatio}`);
    if (options.minMs > options.maxMs) throw new RangeError(`minMs (${options.minMs}) must not exceed maxMs (${options.maxMs})`);
    this.step = options.step ?? 0.3;
    this.coldStep = options.coldStep ?? 2;
  }

  /** How long to wait before the first check of an operation of this kind. */
  delayMs(kind: string): number {
    return Math.round(this.clamp(this.delays.get(kind) ?? this.options.startMs));
  }

  /** What the first check after a dispatch of this kind found: finished (hit) or not (miss). */
  record(kind: string, hit: boolean): void {
    const { hitRatio } = this.options;
    const n = (this.observed.get(kind) ?? 0) + 1;
    this.observed.set(kind, n);
    const step = Math.max(this.step, this.coldStep / Math.sqrt(n));
    const factor = hit ? Math.exp(-step * (1 - hitRatio)) : Math.exp(step * hitRatio);
    this.delays.set(kind, this.clamp(this.delayMs(kind) * factor));
  }

  /** Learned delays by kind, for metrics and the live page. */
  snapshot(): ReadonlyMap<string, number> {
    return new Map([...this.delays].map(([kind, ms]) => [kind, Math.round(ms)]));
  }

  private clamp(ms: number): number {
    return Math.min(this.options.maxMs, Math.max(this.options.minMs, ms));
  }
}

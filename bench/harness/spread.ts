/**
 * A figure over several runs of a benchmark, as the recorded sections print it: the mean, then the
 * range, so every recorded figure states its run-to-run spread.
 */

const fixed = (v: number, digits: number): string => v.toFixed(digits);

export function finite(values: ReadonlyArray<number | undefined>): number[] {
  return values.filter((v): v is number => v !== undefined && Number.isFinite(v));
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
}

/** `mean (min–max)`; `mean (all runs)` when the runs agree to the digit; the value alone for one run. */
export function spread(values: ReadonlyArray<number | undefined>, digits = 1): string {
  const ok = finite(values);
  if (ok.length === 0) return 'n/a';
  if (ok.length === 1) return fixed(ok[0], digits);
  const [lo, hi] = [fixed(Math.min(...ok), digits), fixed(Math.max(...ok), digits)];
  return lo === hi ? `${fixed(mean(ok), digits)} (all runs)` : `${fixed(mean(ok), digits)} (${lo}–${hi})`;
}

/** Milliseconds in the unit their mean reads best in: `55 ms (52–61)`, `14.7 s (14.6–14.8)`. */
export function spreadMs(values: ReadonlyArray<number | undefined>): string {
  const ok = finite(values);
  if (ok.length === 0) return 'n/a';
  const m = mean(ok);
  const [scale, digits, unit] = m >= 10_000 ? [1000, 1, 's'] : m >= 1000 ? [1000, 2, 's'] : [1, 0, 'ms'];
  const f = (v: number): string => fixed(v / scale, digits);
  if (ok.length === 1) return `${f(ok[0])} ${unit}`;
  const [lo, hi] = [f(Math.min(...ok)), f(Math.max(...ok))];
  return lo === hi ? `${f(m)} ${unit} (all runs)` : `${f(m)} ${unit} (${lo}–${hi})`;
}

/**
 * How much lower the second system's figure is, run by run (baseline ÷ opstream of the same run):
 * `271× lower (260–282)`, `1.63× higher (1.60–1.66)`; for costs and latencies, where lower is better.
 */
export function lowerSpread(baseline: ReadonlyArray<number | undefined>, opstream: ReadonlyArray<number | undefined>): string {
  const pairs = baseline.map((b, i) => [b, opstream[i]] as const).filter((p): p is readonly [number, number] => finite(p).length === 2);
  if (pairs.length === 0) return 'n/a';
  if (pairs.every((p) => p[1] <= 0)) return pairs.every((p) => p[0] > 0) ? '∞' : '=';
  const ratios = finite(pairs.map(([b, o]) => (o > 0 ? b / o : undefined)));
  const higher = mean(ratios) < 1;
  const shown = higher ? ratios.map((r) => 1 / r) : ratios;
  const digits = mean(shown) >= 10 ? 0 : 2;
  const word = higher ? 'higher' : 'lower';
  if (shown.length === 1) return `${fixed(shown[0], digits)}× ${word}`;
  const [lo, hi] = [fixed(Math.min(...shown), digits), fixed(Math.max(...shown), digits)];
  return lo === hi ? `${fixed(mean(shown), digits)}× ${word} (all runs)` : `${fixed(mean(shown), digits)}× ${word} (${lo}–${hi})`;
}

/** The mean of each key over maps from several runs (a key missing from a run counts as 0 there). */
export function meanByKey(maps: ReadonlyArray<Partial<Record<string, number>> | undefined>): Record<string, number> {
  const keys = new Set(maps.flatMap((m) => Object.keys(m ?? {})));
  return Object.fromEntries([...keys].map((k) => [k, mean(maps.map((m) => m?.[k] ?? 0))]));
}

/** `write 40.1 (55 %), pointRead 20.3 (28 %), …` from figures by kind (a `total` key is left out), largest first. */
export function shares(byKind: Partial<Record<string, number>>, digits = 1): string {
  const entries = Object.entries(byKind).filter((e): e is [string, number] => e[0] !== 'total' && typeof e[1] === 'number' && e[1] > 0);
  const total = entries.reduce((a, [, v]) => a + v, 0);
  if (total === 0) return 'none';
  return entries
    .sort((x, y) => y[1] - x[1])
    .map(([kind, v]) => `${kind} ${v.toFixed(digits)} (${Math.round((v / total) * 100)} %)`)
    .join(', ');
}

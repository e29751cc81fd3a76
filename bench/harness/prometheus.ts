/** Means of a few histograms from a Prometheus text exposition (summed over labels). */
export function histogramMeans(text: string, names: readonly string[]): Record<string, { count: number; meanMs: number }> {
  const out: Record<string, { count: number; meanMs: number }> = {};
  for (const name of names) {
    let sum = 0;
    let count = 0;
    for (const line of text.split('\n')) {
      const m = /^(\w+?)(_sum|_count)(?:\{[^}]*\})?\s+([0-9.eE+-]+)/.exec(line);
      if (!m || m[1] !== name) continue;
      if (m[2] === '_sum') sum += Number(m[3]);
      else count += Number(m[3]);
    }
    out[name] = { count, meanMs: count ? (sum / count) * 1000 : NaN };
  }
  return out;
}

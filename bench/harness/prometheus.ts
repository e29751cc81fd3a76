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

/** A counter's total per value of one label (summed over the other labels), e.g. Cosmos requests by kind. */
export function counterByLabel(text: string, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  const labelRe = new RegExp(`${label}="([^"]*)"`);
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{([^}]*)\}\s+([0-9.eE+-]+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const value = labelRe.exec(m[2])?.[1] ?? '';
    out[value] = (out[value] ?? 0) + Number(m[3]);
  }
  return out;
}

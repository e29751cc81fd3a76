/**
 * A tiny dependency-free SVG writer for the report: grouped bars on a log scale (latencies) and
 * lines/points on linear axes (throughput). Panels are laid out side by side.
 */
export interface Series {
  readonly name: string;
  readonly color: string;
}

export interface BarGroup {
  readonly label: string;
  /** One value per series (same order); NaN/undefined = not measured. */
  readonly values: ReadonlyArray<number | undefined>;
}

export interface LinePanelSeries extends Series {
  readonly points: ReadonlyArray<readonly [number, number]>;
  readonly dashed?: boolean;
}

const W = 400;
const H = 420;
const M = { left: 60, right: 16, top: 40, bottom: 70 };
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (v: number): string => (v >= 1000 ? `${+(v / 1000).toPrecision(3)} s` : `${+v.toPrecision(3)} ms`);

function frame(title: string, body: string[]): string[] {
  return [`<text x="${W / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${esc(title)}</text>`, ...body];
}

function legend(series: readonly Series[], y: number): string[] {
  return series.map(
    (s, i) =>
      `<rect x="${M.left + i * 120}" y="${y}" width="12" height="12" fill="${s.color}"/><text x="${M.left + i * 120 + 16}" y="${y + 10}" font-size="11">${esc(s.name)}</text>`,
  );
}

/** Grouped vertical bars, log10 y axis in milliseconds. */
export function barPanelLog(title: string, series: readonly Series[], groups: readonly BarGroup[]): string[] {
  const all = groups.flatMap((g) => g.values).filter((v): v is number => v !== undefined && Number.isFinite(v) && v > 0);
  const lo = Math.pow(10, Math.floor(Math.log10(Math.max(1, Math.min(...all)))));
  const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...all, 10))));
  const plotH = H - M.top - M.bottom;
  const plotW = W - M.left - M.right;
  const y = (v: number): number => M.top + plotH - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotH;
  const out: string[] = [];
  for (let p = lo; p <= hi; p *= 10) {
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(p)}" y2="${y(p)}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 6}" y="${y(p) + 4}" text-anchor="end" font-size="10">${fmt(p)}</text>`);
  }
  const groupW = plotW / groups.length;
  const barW = (groupW * 0.8) / series.length;
  groups.forEach((g, gi) => {
    const x0 = M.left + gi * groupW + groupW * 0.1;
    g.values.forEach((v, si) => {
      if (v === undefined || !Number.isFinite(v) || v <= 0) return;
      const top = y(Math.max(v, lo));
      out.push(
        `<rect x="${x0 + si * barW}" y="${top}" width="${barW - 2}" height="${M.top + plotH - top}" fill="${series[si].color}"><title>${esc(`${series[si].name} ${g.label}: ${fmt(v)}`)}</title></rect>`,
      );
    });
    out.push(`<text x="${x0 + (groupW * 0.8) / 2}" y="${M.top + plotH + 14}" text-anchor="middle" font-size="10">${esc(g.label)}</text>`);
  });
  out.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${M.top + plotH}" stroke="#333"/>`);
  return frame(title, [...out, ...legend(series, H - 30)]);
}

/** Lines with points on linear axes from 0. */
export function linePanel(title: string, xLabel: string, yLabel: string, series: readonly LinePanelSeries[]): string[] {
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = series.flatMap((s) => s.points.map((p) => p[1]));
  const xMax = niceCeil(Math.max(...xs, 1));
  const yMax = niceCeil(Math.max(...ys, 1));
  const plotH = H - M.top - M.bottom;
  const plotW = W - M.left - M.right;
  const x = (v: number): number => M.left + (v / xMax) * plotW;
  const y = (v: number): number => M.top + plotH - (v / yMax) * plotH;
  const out: string[] = [];
  for (let i = 0; i <= 5; i++) {
    const yv = (yMax * i) / 5;
    const xv = (xMax * i) / 5;
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(yv)}" y2="${y(yv)}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 6}" y="${y(yv) + 4}" text-anchor="end" font-size="10">${+yv.toPrecision(3)}</text>`);
    out.push(`<text x="${x(xv)}" y="${M.top + plotH + 14}" text-anchor="middle" font-size="10">${+xv.toPrecision(3)}</text>`);
  }
  for (const s of series) {
    if (s.points.length === 0) continue;
    const d = s.points.map((p, i) => `${i ? 'L' : 'M'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5,4"' : ''}/>`);
    for (const p of s.points)
      out.push(
        `<circle cx="${x(p[0]).toFixed(1)}" cy="${y(p[1]).toFixed(1)}" r="3" fill="${s.color}"><title>${esc(`${s.name}: ${p[0]} → ${+p[1].toPrecision(3)}`)}</title></circle>`,
      );
  }
  out.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${M.top + plotH}" stroke="#333"/>`);
  out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${M.top + plotH}" y2="${M.top + plotH}" stroke="#333"/>`);
  out.push(`<text x="${M.left + plotW / 2}" y="${M.top + plotH + 30}" text-anchor="middle" font-size="11">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(14,${M.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-size="11">${esc(yLabel)}</text>`);
  return frame(title, [...out, ...legend(series, H - 30)]);
}

function niceCeil(v: number): number {
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/** Panels side by side in one SVG document. */
export function svgDocument(panels: ReadonlyArray<readonly string[]>, caption: string): string {
  const width = W * panels.length;
  const parts = panels.map((p, i) => `<g transform="translate(${i * W},0)">\n${p.join('\n')}\n</g>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H + 24}" viewBox="0 0 ${width} ${H + 24}" font-family="Helvetica, Arial, sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...parts,
    `<text x="8" y="${H + 16}" font-size="10" fill="#555">${esc(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

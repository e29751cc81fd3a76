/**
 * Checks a Prometheus exposition (what `/metrics` answers) against the metrics table of
 * docs/operating.md: every opstream family is a row with its type, every label it carries is named
 * in the row, and where the row lists a label's values (`reason` (`validation`, `processing`)), every
 * value exported is among them. A row says "e.g." for open sets; "HTTP status" admits status codes.
 */

export interface DocumentedMetric {
  readonly type: string;
  readonly labels: string;
}

interface ExportedFamily {
  readonly type: string;
  readonly labels: Map<string, Set<string>>;
}

/** `| \`opstream_x\` | counter | labels | meaning |` rows of the doc, by metric name. */
export function documentedMetrics(markdown: string): Map<string, DocumentedMetric> {
  const rows = new Map<string, DocumentedMetric>();
  for (const line of markdown.split('\n')) {
    const m = /^\| `(opstream_\w+)` \| (\w+) \|([^|]*)\|/.exec(line);
    if (m) rows.set(m[1], { type: m[2], labels: m[3] });
  }
  return rows;
}

/** The opstream families of an exposition with the values seen for each label (histogram `le` aside). */
export function exportedFamilies(exposition: string): Map<string, ExportedFamily> {
  const families = new Map<string, ExportedFamily>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (opstream_\w+) (\w+)$/.exec(line);
    if (type) {
      families.set(type[1], { type: type[2], labels: new Map() });
      continue;
    }
    const sample = /^(opstream_\w+?)(_bucket|_sum|_count)?(?:\{(.*)\})? \S+$/.exec(line);
    if (!sample) continue;
    const name = families.has(sample[1] + (sample[2] ?? '')) ? sample[1] + (sample[2] ?? '') : sample[1];
    const family = families.get(name);
    if (!family) throw new Error(`sample before its # TYPE line: ${line}`);
    for (const [, label, value] of (sample[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      if (label === 'le' && family.type === 'histogram') continue;
      const values = family.labels.get(label) ?? new Set<string>();
      values.add(value);
      family.labels.set(label, values);
    }
  }
  return families;
}

/** Every way the exposition and the doc disagree, one line each (empty when the doc is true). */
export function metricsReferenceMismatches(exposition: string, markdown: string): string[] {
  const rows = documentedMetrics(markdown);
  const problems: string[] = [];
  for (const [name, family] of exportedFamilies(exposition)) {
    const row = rows.get(name);
    if (!row) {
      problems.push(`${name} (${family.type}) is exported but has no row`);
      continue;
    }
    if (row.type !== family.type) problems.push(`${name}: the doc says ${row.type}, /metrics says ${family.type}`);
    for (const [label, values] of family.labels) {
      const named = new RegExp('`' + label + '`(?: \\(([^)]*)\\))?').exec(row.labels);
      if (!named) {
        problems.push(`${name}: label ${label} (e.g. "${[...values][0]}") is not named in the row`);
        continue;
      }
      const listing = named[1];
      if (!listing || !listing.includes('`') || listing.includes('e.g.')) continue;
      const listed = [...listing.matchAll(/`([^`]*)`/g)].map((v) => v[1]);
      const statusCodes = listing.includes('HTTP status');
      for (const value of values) {
        if (listed.includes(value) || (statusCodes && /^\d{3}$/.test(value))) continue;
        problems.push(`${name}: ${label}="${value}" is exported; the row lists ${listed.map((v) => `"${v}"`).join(', ')}`);
      }
    }
  }
  return problems;
}

import { readFileSync } from 'fs';
import { join } from 'path';
import { startRunningInstance, type RunningInstance } from '../helpers/running-instance';
import { at, KUBERNETES_DIR, only, render, validateObject } from './manifests';

/**
 * The alerts (PrometheusRule) and the Grafana dashboard in deploy/kubernetes/base name only metrics
 * that opstream exports: every expression is reduced to the metric names it selects, and each must
 * be a metric family on the /metrics of a running instance (histograms by their _bucket, _sum and
 * _count series).
 */
interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface Panel {
  title?: string;
  type: string;
  targets?: Array<{ expr: string }>;
  panels?: Panel[];
}

const FUNCTIONS_AND_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/** The metric names a PromQL expression selects (functions, keywords, labels, strings and durations left out). */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings (label values, regexes)
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // ranges and subqueries
    .replace(/\b(by|without)\s*\([^)]*\)/g, '') // grouping: `sum by (a) (x)` → `sum (x)`
    .replace(/\b(on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '$1'); // vector matching label lists
  const names = new Set<string>();
  for (const m of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const name = m[0];
    const after = bare.slice((m.index ?? 0) + name.length).trimStart();
    if (after.startsWith('(') || FUNCTIONS_AND_KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/** Metric families of a Prometheus text exposition: name → type. */
function families(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (m) out.set(m[1] as string, m[2] as string);
  }
  return out;
}

/** Whether `name` is exported: a family of that name, or a series of a histogram or summary family. */
function exported(name: string, all: Map<string, string>): boolean {
  if (all.has(name)) return true;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  return (
    m !== null &&
    ['histogram', 'summary'].includes(all.get(m[1] as string) ?? '') &&
    (m[2] !== 'bucket' || all.get(m[1] as string) === 'histogram')
  );
}

function panelsOf(dashboard: { panels: Panel[] }): Panel[] {
  return dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

describe('metricNames', () => {
  it.each([
    ['sum by (reason) (increase(opstream_dead_letters_total[10m])) > 0', ['opstream_dead_letters_total']],
    [
      'histogram_quantile(0.99, sum by (le, endpoint) (rate(opstream_cs_call_duration_seconds_bucket[5m])))',
      ['opstream_cs_call_duration_seconds_bucket'],
    ],
    ['sum(rate(x_total{status=~"5..|timeout"}[5m])) / sum(rate(x_total[5m])) > 0.05', ['x_total']],
    ['sum(a) == 0 or absent(a)', ['a']],
    ['time() - max by (operation_id) (b{request="Delete"}) > 60 * 60', ['b']],
    ['deriv(sum(c)[10m:1m]) > 0 and sum(c) > 0', ['c']],
  ])('%s selects %j', (expr, names) => {
    expect(metricNames(expr).sort()).toEqual([...names].sort());
  });
});

describe('deploy/kubernetes/base monitoring', () => {
  const objects = render('base');
  const rule = only(objects, 'PrometheusRule');
  const groups = at<Array<{ name: string; rules: Rule[] }>>(rule, 'spec.groups');
  const rules = groups.flatMap((g) => g.rules);
  const dashboardMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1');
  const dashboardJson = readFileSync(join(KUBERNETES_DIR, 'base', 'dashboards', 'opstream.json'), 'utf8');
  const dashboard = JSON.parse(dashboardJson) as { uid: string; panels: Panel[] };
  let instance: RunningInstance;
  let exposition: Map<string, string>;

  beforeAll(async () => {
    instance = await startRunningInstance();
    exposition = families(await (await fetch(`${instance.opsUrl}/metrics`)).text());
  });
  afterAll(() => instance?.close());

  it('has a PrometheusRule that validates against the Prometheus operator schema, with the alerts the issue asks for', () => {
    validateObject(rule);
    expect(rules.map((r) => r.alert).sort()).toEqual(
      [
        'OpstreamArmNotificationsFailing',
        'OpstreamArmNotificationsGivenUp',
        'OpstreamChangeFeedLagGrowing',
        'OpstreamClustersServiceErrors',
        'OpstreamDeadLetterWritesFailing',
        'OpstreamDeadLetters',
        'OpstreamLeaseUnowned',
        'OpstreamNoLeaseOwned',
        'OpstreamOperationTooOld',
        'OpstreamPermissionDenied',
        'OpstreamSecondFleet',
      ].sort(),
    );
    for (const r of rules) {
      expect(r.labels?.severity).toMatch(/^(warning|critical)$/);
      expect(r.annotations?.summary).toBeTruthy();
    }
    expect(rules.find((r) => r.alert === 'OpstreamChangeFeedLagGrowing')?.for).toBe('10m');
  });

  it('links every alert to its runbook section by an absolute URL: the base URL set once in the kustomization, #<alert name in lower case>', () => {
    const base = runbooksUrl();
    expect(base).toMatch(/^https:\/\/[^#]+\/docs\/runbooks\.md$/);
    for (const r of rules.filter((x) => x.alert))
      expect([r.alert, r.annotations?.runbook_url]).toEqual([r.alert, `${base}#${(r.alert as string).toLowerCase()}`]);
  });

  it('gives the lag alert the growth it alerts on as its value (`and` keeps the left side), not the total lag', () => {
    const lag = rules.find((r) => r.alert === 'OpstreamChangeFeedLagGrowing') as Rule;
    const [value, ...conditions] = lag.expr.split(/\s+and\s+/);
    expect(value).toMatch(/^deriv\(sum\(opstream_changefeed_lease_lag_changes\)\[10m:1m\]\) > 0$/);
    expect(conditions).toEqual(['sum(opstream_changefeed_lease_lag_changes) > 0']);
    expect(lag.annotations?.summary).toContain('{{ $value | humanize }} changes per second');
  });

  it('selects no series per operation: alerts and panels read the bounded active-operation gauges', () => {
    const expressions = [...rules.map((r) => r.expr), ...panelsOf(dashboard).flatMap((p) => (p.targets ?? []).map((t) => t.expr))];
    for (const expr of expressions) expect(expr).not.toMatch(/operation_id|opstream_active_operation_start_time_seconds/);
    expect(rules.find((r) => r.alert === 'OpstreamOperationTooOld')?.expr).toMatch(
      /max by \(resource_type, request, status\) \(opstream_active_operation_oldest_age_seconds\{/,
    );
  });

  it('scopes every panel to the job and namespace chosen in its variables', () => {
    const variables = (dashboard as unknown as { templating: { list: Array<{ name: string; type: string; query?: { query: string } }> } })
      .templating.list;
    expect(variables.find((v) => v.name === 'namespace')).toMatchObject({
      type: 'query',
      query: { query: 'label_values(opstream_build_info, namespace)' },
    });
    expect(variables.find((v) => v.name === 'job')).toMatchObject({
      type: 'query',
      query: { query: 'label_values(opstream_build_info{namespace="$namespace"}, job)' },
    });
    for (const p of panelsOf(dashboard)) {
      for (const t of p.targets ?? []) {
        const names = metricNames(t.expr);
        expect(names.length).toBeGreaterThan(0);
        for (const name of names) {
          const selectors = [...t.expr.matchAll(new RegExp(`\\b${name}(\\{[^}]*\\})?`, 'g'))].map((m) => m[1] ?? '');
          for (const s of selectors)
            expect([p.title, s]).toEqual([p.title, expect.stringMatching(/^\{job="\$job", namespace="\$namespace"(, |\})/)]);
        }
      }
    }
  });

  it('ships the dashboard as the ConfigMap Grafana loads, the same JSON as the file', () => {
    if (!dashboardMap) throw new Error('no ConfigMap labelled grafana_dashboard rendered');
    validateObject(dashboardMap);
    expect(at<Record<string, string>>(dashboardMap, 'data')['opstream.json']).toBe(dashboardJson);
    expect(dashboard.uid).toBe('opstream');
    expect(panelsOf(dashboard).filter((p) => p.type !== 'row').length).toBeGreaterThanOrEqual(15);
  });

  it('names only metrics a running instance exports, in every alert and every panel', () => {
    const named = new Map<string, string>();
    for (const r of rules) for (const n of metricNames(r.expr)) named.set(n, `alert ${r.alert ?? r.record}`);
    for (const p of panelsOf(dashboard))
      for (const t of p.targets ?? []) for (const n of metricNames(t.expr)) named.set(n, `panel "${p.title}"`);
    expect(named.size).toBeGreaterThanOrEqual(20);
    const missing = [...named].filter(([n]) => !exported(n, exposition)).map(([n, where]) => `${n} (${where})`);
    expect(missing).toEqual([]);
  });
});

/** The `url` literal of the base kustomization's `opstream-runbooks` ConfigMap. */
function runbooksUrl(): string {
  const kustomization = readFileSync(join(KUBERNETES_DIR, 'base/kustomization.yaml'), 'utf8');
  return /^\s*- url=(\S+)\s*$/m.exec(kustomization)?.[1] ?? '';
}

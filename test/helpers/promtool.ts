import { execFileSync, spawnSync } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { stringify } from 'yaml';
import { at, only, render } from '../deploy/manifests';

interface AlertRule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Prometheus's promtool, put in place by `.ci/setup-promtool` (Debian's package, unpacked into the cache). */
function promtool(): string {
  return (
    execFileSync('bash', [join(__dirname, '..', '..', '.ci', 'setup-promtool')], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop() ?? ''
  );
}

/** The rendered base PrometheusRule's alert `name`. */
function alertRule(name: string): AlertRule {
  const rule = only(render('base'), 'PrometheusRule');
  const found = at<Array<{ rules: AlertRule[] }>>(rule, 'spec.groups')
    .flatMap((g) => g.rules)
    .find((r) => r.alert === name);
  if (!found) throw new Error(`the PrometheusRule has no alert ${name}`);
  return found;
}

/** `name{a="b"} 3` lines of an exposition, as promtool's input series held at their value for `minutes`. */
function inputSeries(exposition: string, minutes: number): Array<{ series: string; values: string }> {
  return exposition
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const cut = l.lastIndexOf(' ');
      return { series: l.slice(0, cut), values: `${l.slice(cut + 1)}x${minutes}` };
    });
}

/** A template's `{{ $labels.x }}` and `{{ $value }}` filled in, as Prometheus renders an annotation. */
function rendered(template: string, labels: Record<string, string>, value: string): string {
  return template.replace(/\{\{\s*\$labels\.(\w+)\s*\}\}/g, (_m, k: string) => labels[k] ?? '').replace(/\{\{\s*\$value\s*\}\}/g, value);
}

/**
 * Evaluates the deployed alert over `exposition` (scraped from a running instance, held for the
 * alert's `for` and a minute more) with promtool, expecting it to fire with `labels` (the expression's
 * output labels; the rule's own are added) and `value`. Throws promtool's account when it does not.
 */
export function expectAlertFires(name: string, exposition: string, fired: { labels: Record<string, string>; value: string }): void {
  const rule = alertRule(name);
  const forMinutes = Number(/^(\d+)m$/.exec(rule.for ?? '0m')?.[1] ?? 0);
  const evalMinutes = forMinutes + 1;
  const labels = { ...fired.labels, ...rule.labels };
  const dir = mkdtempSync(join(tmpdir(), 'promtool-'));
  try {
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: [{ name: 'deployed', rules: [rule] }] }));
    const test = {
      rule_files: ['rules.yaml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: inputSeries(exposition, evalMinutes + 2),
          alert_rule_test: [
            {
              eval_time: `${evalMinutes}m`,
              alertname: name,
              exp_alerts: [
                {
                  exp_labels: labels,
                  exp_annotations: Object.fromEntries(
                    Object.entries(rule.annotations ?? {}).map(([k, v]) => [k, rendered(v, labels, fired.value)]),
                  ),
                },
              ],
            },
          ],
        },
      ],
    };
    writeFileSync(join(dir, 'test.yaml'), stringify(test));
    const run = spawnSync(promtool(), ['test', 'rules', 'test.yaml'], { cwd: dir, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${name} did not fire as expected:\n${run.stdout}\n${run.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

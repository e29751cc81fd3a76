/**
 * Where bench/idle-cost.ts records its run: the run itself (bench/results/idle-cost/run.json), its page
 * (bench/results/idle-cost.md), the idle row of the headline table in bench/RESULTS.md (and the README's
 * copy of it), and the measured tables of docs/cost.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { headlineTable, withHeadlineTable, withRow } from './headline';
import { writeRunData } from './results-section';
import type { IdleCostResult, PolicyResult } from './idle-cost-result';

const SECTION_BEGIN = '<!-- idle-cost:begin (written by `node dist/bench/idle-cost.js --record`; do not edit by hand) -->';
const SECTION_END = '<!-- idle-cost:end -->';
const COST_BEGIN =
  '<!-- idle-cost-tables:begin (written by `node dist/bench/idle-cost.js --record` from bench/results/idle-cost/run.json; do not edit by hand) -->';
const COST_END = '<!-- idle-cost-tables:end -->';
const IDLE_ROW = 'Cosmos requests per idle second';
/** The polling baseline's idle figure (bench/results/opstream-vs-baseline.md): one query per 30 s scan and its reads. */
const BASELINE_IDLE = '0.07';

const ms = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const rate = (n: number): string => n.toFixed(2);

function policyName(p: PolicyResult): string {
  return p.chosen ? `**${p.label} (the default)**` : p.label;
}

function chosen(result: IdleCostResult): PolicyResult {
  const c = result.policies.find((p) => p.chosen);
  if (!c) throw new Error('the run marks no policy as the default');
  return c;
}

function verdict(ok: boolean): string {
  return ok ? 'met' : '**not met**';
}

function renderSection(result: IdleCostResult): string {
  const { shape, run } = result;
  const def = chosen(result);
  const hints = result.policies.find((p) => p.key.startsWith('hints'));
  const lines = [
    SECTION_BEGIN,
    '## Idle cost against reaction (issue 40)',
    '',
    `${result.date}, ${result.machine}. ${shape.operations} new operations (${shape.writes} writes with the backend's write-backs) in bursts over ${shape.durationMs / 1000} s on ${shape.ranges} feed ranges: a burst every ${shape.meanBurstGapMs / 1000} s on average (seed ${shape.seed}), each a cluster Create, 1–3 node pools and sometimes an Update on one subscription, each operation followed by its write-backs; then ${shape.idleSeconds} s quiet. All policies in one run, on the same schedule, each on a Cosmos emulator process of its own whose counters give the requests. Reaction: acknowledged write of a new operation → its delivery to the change feed handler. Idle: after the active window and the climb to the ceiling. Leases: one instance holding the ${shape.ranges} leases (renewal every ${(shape.leaseRenewIntervalMs ?? 10_000) / 1000} s; alone with every lease, it lists them every ${(shape.leaseExpirationMs ?? 30_000) / 1000} s).`,
    '',
    '| poll policy | reaction p50 / p90 / p99 (ms) | idle change-feed requests/s per range | idle requests/s per range, leases included | idle RU/s per range | requests/s per range during the bursts |',
    '|---|---|---|---|---|---|',
    ...result.policies.map(
      (p) =>
        `| ${policyName(p)} | ${ms(p.reaction.p50)} / ${ms(p.reaction.p90)} / ${ms(p.reaction.p99)} | ${rate(p.idle.changeFeedPerRange)} | ${rate(p.idle.totalPerRange)} | ${rate(p.idle.ruPerRange)} | ${rate(p.busyPerRange)} |`,
    ),
    '',
    `\`opstream run\` with its defaults on ${run.ranges} idle ranges (${Math.round(run.seconds)} s, one period of its safety-net relist, one instance): **${rate(run.totalPerRange)} requests a second per range**, of which change-feed polls ${rate(run.changeFeedPerRange)}, lease upkeep ${rate(run.leasePerRange)} and everything else ${rate(run.otherPerRange)}; ${rate(run.ruPerRange)} RU a second per range.`,
    ...(run.probed
      ? [
          '',
          `With the Kubernetes deploy's probes and scrapes (/readyz and /healthz every 10 s, /metrics every 30 s; the next ${Math.round(run.probed.seconds)} s): **${rate(run.probed.totalPerRange)} requests a second per range**, of which change-feed polls ${rate(run.probed.changeFeedPerRange)}, lease upkeep ${rate(run.probed.leasePerRange)} and everything else ${rate(run.probed.otherPerRange)} (the readiness check's database read); ${rate(run.probed.ruPerRange)} RU a second per range.`,
        ]
      : []),
    '',
    'Against the targets:',
    `- Default without hints: idle change-feed requests ≤ 1 a second per range (${rate(def.idle.changeFeedPerRange)}: ${verdict(def.idle.changeFeedPerRange <= 1.05)}), reaction p99 ≤ 1 s (${ms(def.reaction.p99)} ms: ${verdict(def.reaction.p99 <= 1000)}), p50 ${ms(def.reaction.p50)} ms.`,
    ...(hints
      ? [
          `- With hints: p99 ≤ 25 ms (${ms(hints.reaction.p99)} ms: ${verdict(hints.reaction.p99 <= 25)}) at ≤ 0.2 idle change-feed requests a second per range (${rate(hints.idle.changeFeedPerRange)}: ${verdict(hints.idle.changeFeedPerRange <= 0.21)}).`,
        ]
      : []),
    `- \`opstream run\`, defaults, leases included: ~1 request a second per range (${rate(run.totalPerRange)}: ${verdict(run.totalPerRange <= 1.1)}${run.probed ? `; ${rate(run.probed.totalPerRange)} with the deploy's probes and scrapes` : ''}).`,
    SECTION_END,
  ];
  return lines.join('\n');
}

/** docs/cost.md's measured tables: per range by policy, and the defaults projected to more ranges. */
function renderCostTables(result: IdleCostResult): string {
  const def = chosen(result);
  const byKey = (key: string): PolicyResult | undefined => result.policies.find((p) => p.key === key);
  const old = byKey('fixed-100');
  const hints = result.policies.find((p) => p.key.startsWith('hints'));
  const leasePerRange = result.run.leasePerRange;
  const project = (n: number, perRange: number | undefined): string =>
    perRange === undefined ? '—' : Math.round(n * perRange).toLocaleString('en-US');
  return [
    COST_BEGIN,
    `Measured (bench/results/idle-cost.md, ${result.date}; ${result.shape.ranges} ranges, bursty operations then quiet):`,
    '',
    '| poll policy | idle change-feed requests/s per range | idle requests/s per range, leases included | reaction p50 / p99 (ms) |',
    '|---|---|---|---|',
    ...result.policies.map(
      (p) =>
        `| ${policyName(p)} | ${rate(p.idle.changeFeedPerRange)} | ${rate(p.idle.totalPerRange)} | ${ms(p.reaction.p50)} / ${ms(p.reaction.p99)} |`,
    ),
    '',
    `\`opstream run\` with the defaults, ${result.run.ranges} idle ranges: ${rate(result.run.totalPerRange)} requests a second per range in all (change feed ${rate(result.run.changeFeedPerRange)}, leases ${rate(leasePerRange)})` +
      (result.run.probed
        ? `; ${rate(result.run.probed.totalPerRange)} under the Kubernetes deploy's probes and scrapes (/readyz every 10 s, /metrics every 30 s).`
        : '.'),
    '',
    'The same per-range figures for more ranges (requests a second, before any operation arrives):',
    '',
    '| ranges | idle polls, default | idle polls, hints on | idle polls at the former 100 ms | lease upkeep (the 4-range rate per range: an upper bound, as the listing is per instance) |',
    '|---|---|---|---|---|',
    ...[4, 100, 300].map(
      (n) =>
        `| ${n} | ${project(n, def.idle.changeFeedPerRange)} | ${project(n, hints?.idle.changeFeedPerRange)} | ${project(n, old?.idle.changeFeedPerRange)} | ${project(n, leasePerRange)} |`,
    ),
    COST_END,
  ].join('\n');
}

function replaceBetween(text: string, begin: string, end: string, block: string, file: string, after?: string): string {
  const s = text.indexOf(begin);
  const e = text.indexOf(end);
  if (s >= 0 && e > s) return `${text.slice(0, s)}${block}${text.slice(e + end.length)}`;
  if (after === undefined) throw new Error(`${file} has no ${begin} … ${end} block`);
  const at = after === '' ? -1 : text.indexOf(after);
  if (at < 0) return `${text.trimEnd()}\n\n${block}\n`;
  return `${text.slice(0, at)}${block}\n\n${text.slice(at)}`;
}

/** The headline's idle row, from `opstream run` with its defaults. */
function idleRow(result: IdleCostResult): string {
  const total = result.run.totalPerRange * result.run.ranges;
  const probed = result.run.probed
    ? ` (${(result.run.probed.totalPerRange * result.run.ranges).toFixed(1)} with the deploy's probes and scrapes)`
    : '';
  return `| ${IDLE_ROW}, ${result.run.ranges} feed ranges, lease upkeep included (the change feed is polled) | ${BASELINE_IDLE} | ${total.toFixed(1)}${probed} |`;
}

export function recordIdleCost(result: IdleCostResult, root: string): void {
  writeRunData(join(root, 'bench/results/idle-cost/run.json'), result);
  const pageFile = join(root, 'bench/results/idle-cost.md');
  const page = replaceBetween(
    readFileSync(pageFile, 'utf8'),
    SECTION_BEGIN,
    SECTION_END,
    renderSection(result),
    'bench/results/idle-cost.md',
    '',
  );
  writeFileSync(pageFile, page);
  const resultsFile = join(root, 'bench/RESULTS.md');
  let results = readFileSync(resultsFile, 'utf8');
  const table = withRow(headlineTable(results, 'bench/RESULTS.md'), IDLE_ROW, idleRow(result));
  results = withHeadlineTable(results, 'bench/RESULTS.md', table);
  writeFileSync(resultsFile, results);
  const readmeFile = join(root, 'README.md');
  writeFileSync(readmeFile, withHeadlineTable(readFileSync(readmeFile, 'utf8'), 'README.md', table));
  const costFile = join(root, 'docs/cost.md');
  writeFileSync(costFile, replaceBetween(readFileSync(costFile, 'utf8'), COST_BEGIN, COST_END, renderCostTables(result), 'docs/cost.md'));
}

/**
 * The throughput sweep and the scale-out of "opstream vs the polling baseline" with their run-to-run
 * spread, from two or more runs of those phases (`node dist/bench/run.js --phases 2,3 --json run-N.json`):
 * each level's figures as mean (min–max) over the runs, and each run's figure with the machine's
 * load, so a reader sees how much of a difference is the machine. Writes the section
 * "## Throughput and scale-out over several runs" of bench/RESULTS.md (only that section) with
 * `--record`; the analysis in bench/throughput-spread.notes.md is included as is.
 *
 *   npm run build && node dist/bench/throughput-spread.js [--record] run-1.json run-2.json …
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LevelResult } from './harness/throughput-phase';
import type { BenchReport } from './harness/report';
import { recordSection } from './harness/results-section';

const SECTION = '## Throughput and scale-out over several runs';
const BENCH_DIR = join(__dirname, '../../bench');
const RESULTS_FILE = join(BENCH_DIR, 'RESULTS.md');
const NOTES_FILE = join(BENCH_DIR, 'throughput-spread.notes.md');

export interface Run {
  file: string;
  report: BenchReport;
}

const fmt = (v: number | undefined, digits = 1): string => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits));

/** `mean (min–max)`; one value alone when the runs agree to the digit. */
export function spread(values: Array<number | undefined>, digits = 1): string {
  const ok = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (ok.length === 0) return 'n/a';
  const mean = ok.reduce((a, b) => a + b, 0) / ok.length;
  const [lo, hi] = [fmt(Math.min(...ok), digits), fmt(Math.max(...ok), digits)];
  return lo === hi ? `${fmt(mean, digits)} (all runs)` : `${fmt(mean, digits)} (${lo}–${hi})`;
}

/** Levels keyed by system, instances and offered rate, in the order of the first run. */
function levelsOf(runs: Run[], pick: (r: BenchReport) => LevelResult[]): Array<{ key: string; levels: Array<LevelResult | undefined> }> {
  const key = (l: LevelResult): string => `${l.system}|${l.instances}|${l.rate}`;
  return pick(runs[0].report).map((first) => ({ key: key(first), levels: runs.map((r) => pick(r.report).find((l) => key(l) === key(first))) }));
}

const seconds = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : ms / 1000);
const mib = (bytes: number | undefined): number | undefined => (bytes === undefined ? undefined : bytes / 1024 / 1024);

function load(file: string): Run {
  const report = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  if (report.mode !== 'full') throw new Error(`${file} is a quick run: its windows are too short to compare with the recorded full run`);
  if (report.sweep.length === 0 || report.scaleOut.length === 0) throw new Error(`${file} has no sweep or no scale-out: run \`node dist/bench/run.js --phases 2,3 --json ${file}\``);
  return { file, report };
}

export function render(runs: Run[]): string {
  const first = runs[0].report;
  const commits = [...new Set(runs.map((r) => r.report.commit ?? 'unknown'))];
  const L: string[] = [
    SECTION,
    '',
    `Command: \`npm run build && node dist/bench/run.js --phases 2,3 --json run-N.json\` ${runs.length} times, then \`node dist/bench/throughput-spread.js --record run-*.json\` (the runs' JSON: bench/throughput-runs/)` +
      ` (${first.date.slice(0, 10)}, ${first.machine}, Node ${first.node}, commit ${commits.join(', ')}).`,
    'The throughput sweep and the scale-out of "opstream vs the polling baseline" (same levels, windows and seeds as its full mode), run again to give each figure its run-to-run spread: mean over the runs (min–max). The per-run tables give each run\'s figure beside the machine\'s load.',
    '',
    '### Throughput (one instance, open-loop offered load)',
    '',
    '| system | offered ops/s | completed ops/s | e2e p50 s | e2e p99 s | CPU per op ms | Cosmos req/op | RU/op | CS calls/op | peak RSS MiB |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { levels } of levelsOf(runs, (r) => r.sweep)) {
    const l0 = levels.find((l) => l !== undefined) as LevelResult;
    const f = (pick: (l: LevelResult) => number | undefined, digits = 1): string => spread(levels.map((l) => (l ? pick(l) : undefined)), digits);
    L.push(
      `| ${l0.system} | ${l0.rate} | ${f((l) => l.completedPerSecond)} | ${f((l) => seconds(l.endToEnd.p50), 2)} | ${f((l) => seconds(l.endToEnd.p99), 2)} | ${f((l) => l.cpuMsPerOp, 0)} | ${f((l) => l.cosmosRequestsPerOp)} | ${f((l) => l.requestUnitsPerOp)} | ${f((l) => l.csCallsPerOp, 2)} | ${f((l) => mib(l.peakRssBytes), 0)} |`,
    );
  }
  L.push('', '### Scale-out (each instance capped at its CPU quota)', '', '| instances | offered ops/s | completed ops/s | gain vs 1 | throttled | machine busy (of 2) | e2e p50 s | e2e p99 s |', '|---|---|---|---|---|---|---|---|');
  const scale = levelsOf(runs, (r) => r.scaleOut);
  const oneOf = (runIndex: number): number | undefined => scale.find((s) => s.levels[runIndex]?.instances === 1)?.levels[runIndex]?.completedPerSecond;
  for (const { levels } of scale) {
    const l0 = levels.find((l) => l !== undefined) as LevelResult;
    const f = (pick: (l: LevelResult, i: number) => number | undefined, digits = 1): string => spread(levels.map((l, i) => (l ? pick(l, i) : undefined)), digits);
    L.push(
      `| ${l0.instances} | ${l0.rate} | ${f((l) => l.completedPerSecond)} | ${f((l, i) => l.completedPerSecond / (oneOf(i) ?? NaN), 2)}× | ${f((l) => (l.throttledShare ?? NaN) * 100, 0)} % | ${f((l) => l.machineBusyCores, 2)} | ${f((l) => seconds(l.endToEnd.p50), 1)} | ${f((l) => seconds(l.endToEnd.p99), 1)} |`,
    );
  }
  L.push('', '### Each run', '', `| level | ${runs.map((_, i) => `run ${i + 1}: completed ops/s (load avg before → after, others' cores)`).join(' | ')} |`, `|---|${runs.map(() => '---').join('|')}|`);
  for (const { levels } of [...levelsOf(runs, (r) => r.sweep), ...scale]) {
    const l0 = levels.find((l) => l !== undefined) as LevelResult;
    const cells = levels.map((l) => (l ? `${fmt(l.completedPerSecond)} (${fmt(l.loadAverage?.[0])} → ${fmt(l.loadAverage?.[1])}, ${fmt(l.otherCores, 2)})` : 'n/a'));
    L.push(`| ${l0.system}${l0.instances > 1 ? ` ×${l0.instances}` : ''} @ ${l0.rate} | ${cells.join(' | ')} |`);
  }
  L.push('', `Runs: ${runs.map((r, i) => `${i + 1} = ${r.report.date.slice(0, 16).replace('T', ' ')} UTC, ${Math.round(r.report.wallSeconds)} s, commit ${r.report.commit ?? 'unknown'}`).join('; ')}.`, '');
  if (existsSync(NOTES_FILE)) L.push(readFileSync(NOTES_FILE, 'utf8').trim(), '');
  return L.join('\n');
}

function main(): void {
  const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  if (files.length < 2) {
    process.stderr.write('throughput-spread: give two or more --json outputs of `node dist/bench/run.js --phases 2,3` (the spread needs two runs)\n');
    process.exit(2);
  }
  const section = render(files.map(load));
  process.stdout.write(`${section}\n`);
  if (process.argv.includes('--record')) recordSection(RESULTS_FILE, SECTION, section, '## Request units: opstream vs the polling baseline');
}

if (require.main === module) main();

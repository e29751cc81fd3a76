/**
 * Request units of opstream and the polling baseline, from two or more runs of the scripted phase with
 * production intervals (`node dist/bench/run.js --phases 1 --json run-N.json`), side by side with their
 * run-to-run spread. Writes the "## Request units" section of bench/results/request-units.md (only that section) with
 * `--record`; the analysis in bench/results/request-units.notes.md is included as is.
 *
 *   npm run build && node dist/bench/request-units.js [--record] run-1.json run-2.json …
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { benchCommand } from './harness/cli';
import { unitsAboveIdle, type BenchReport } from './harness/report';
import { recordSection, resultsPath } from './harness/results-section';
import type { ScriptedResult } from './harness/scripted-phase';
import { mean, meanByKey, shares, spread } from './harness/spread';

const SECTION = '## Request units: opstream vs the polling baseline';
const ROOT = join(__dirname, '../..');
const RESULTS_FILE = resultsPath('request-units');
const NOTES_FILE = resultsPath('request-units').replace(/\.md$/, '.notes.md');
/** The target of issue 18: opstream's RU per operation at most this multiple of the baseline's. */
const TARGET_RATIO = 1.5;

interface Run {
  file: string;
  report: BenchReport;
  baseline: ScriptedResult;
  opstream: ScriptedResult;
}

const fmt = (v: number | undefined, digits = 1): string => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits));

/** RU per operation above the system's own idle rate (NaN when a run lacks the figures). */
const aboveIdle = (s: ScriptedResult): number => unitsAboveIdle(s) ?? NaN;

/** Mean figure per kind over the runs, largest first: `write 40.1 (55 %), …`. */
function byKind(runs: Run[], pick: (r: Run) => Partial<Record<string, number>> | undefined, digits = 1): string {
  return shares(meanByKey(runs.map(pick)), digits);
}

/** RU per operation and per idle second by container (the emulator's `byContainer`), when the runs have them. */
function byContainerLines(runs: Run[]): string[] {
  if (!runs.every((r) => r.baseline.requestUnitsPerOpByContainer && r.opstream.requestUnitsPerOpByContainer)) return [];
  const totals =
    (pick: (r: Run) => Record<string, Partial<Record<string, number>>> | undefined) =>
    (r: Run): Partial<Record<string, number>> =>
      Object.fromEntries(Object.entries(pick(r) ?? {}).map(([container, units]) => [container, units.total ?? 0]));
  return [
    `By container, per operation — baseline: ${byKind(
      runs,
      totals((r) => r.baseline.requestUnitsPerOpByContainer),
    )}; opstream: ${byKind(
      runs,
      totals((r) => r.opstream.requestUnitsPerOpByContainer),
    )}.` +
      ` Per idle second — opstream: ${byKind(
        runs,
        totals((r) => r.opstream.idleRequestUnitsPerSecondByContainer),
        2,
      )}.`,
    '',
  ];
}

function load(file: string): Run {
  const report = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  const baseline = report.scripted.find((s) => s.system === 'baseline');
  const opstream = report.scripted.find((s) => s.system === 'opstream');
  if (!baseline || !opstream)
    throw new Error(`${file} has no scripted results for both systems: run \`node dist/bench/run.js --phases 1 --json ${file}\`.`);
  if (baseline.requestUnitsPerOp === undefined)
    throw new Error(`${file} has no request-unit figures: it was written before the emulator charged them.`);
  if (report.mode !== 'full')
    throw new Error(`${file} is a quick run (baseline intervals shrunk by 10): RU per idle second would not be the production figure.`);
  return { file, report, baseline, opstream };
}

/**
 * The target read two ways: the operations' own cost (each system above its own idle rate, the idle
 * rate being stated on its own, as the issue asks), and the total over this workload, whose share of
 * idle polls depends on how many operations a second it brings; from the same figures, the rate at which
 * the total meets the target.
 */
function targetLines(runs: Run[]): string[] {
  const m = (f: (r: Run) => number): number => mean(runs.map(f));
  const verdict = (ratio: number): string => `**${ratio <= TARGET_RATIO ? 'met' : 'not met'}**`;
  const own = m((r) => aboveIdle(r.opstream) / aboveIdle(r.baseline));
  const total = m((r) => (r.opstream.requestUnitsPerOp ?? NaN) / (r.baseline.requestUnitsPerOp ?? NaN));
  const rate = m((r) => r.opstream.operations / (r.opstream.wallMs / 1000));
  // opstream's total ÷ the baseline's at λ operations a second: (aboveO + idleO / λ) ÷ (aboveB + idleB / λ).
  const headroom = TARGET_RATIO * m((r) => aboveIdle(r.baseline)) - m((r) => aboveIdle(r.opstream));
  const idleExcess =
    m((r) => r.opstream.idleRequestUnitsPerSecond ?? NaN) - TARGET_RATIO * m((r) => r.baseline.idleRequestUnitsPerSecond ?? NaN);
  const breakEven = headroom > 0 ? idleExcess / headroom : NaN;
  return [
    `Target: RU per operation ≤ ${TARGET_RATIO}× the baseline's, idle RU per second stated beside it. The operations' own cost (each system above its own idle rate; the idle rate is the line "RU per idle second"): ${fmt(own, 2)}× — ${verdict(own)}.` +
      ` In all over this workload, about ${fmt(rate, 2)} operations a second, idle polls included: ${fmt(total, 2)}× — ${verdict(total)};` +
      (Number.isFinite(breakEven)
        ? ` with these per-operation and idle figures the total is within ${TARGET_RATIO}× from ${fmt(breakEven, 2)} operations a second on (idle polls cost the same per second whatever the load, so the busier the container, the smaller their share).`
        : " the operations' own cost alone is above the target, so no load brings the total within it."),
  ];
}

function render(runs: Run[]): string {
  const L: string[] = [SECTION, ''];
  const first = runs[0].report;
  L.push(
    `Command: \`node dist/bench/request-units.js --record ${runs.map((r) => relative(ROOT, resolve(r.file))).join(' ')}\` (the scripted phase of ${runs.length} full runs: \`npm run bench\`, or \`node dist/bench/run.js --phases 1 --json run-N.json\`)` +
      ` (${first.date.slice(0, 10)}, ${first.machine}, Node ${first.node}${first.commit ? `, commit ${first.commit}` : ''}).`,
    `The scripted workload of "opstream vs the polling baseline" (${runs[0].opstream.operations} operations, production intervals: scan every ${first.baselineIntervals.scanIntervalMs / 1000} s, pass every ${first.baselineIntervals.passIntervalMs / 1000} s; both systems at once, each on its own emulator):` +
      ` opstream's workload took ${fmt(runs[0].opstream.wallMs / 1000, 0)} s, the baseline's ${fmt(runs[0].baseline.wallMs / 1000, 0)} s (run 1), then each idled for the full mode's idle minute.`,
    "Request units are the Cosmos emulator's charges (`x-ms-request-charge`, its documented cost model calibrated on the service's published figures: infra/cosmos-emulator/README.md \"Request charges\") on each system's own emulator, minus the harness's own requests. Figures: mean over the runs (min–max).",
    '',
    '| figure | baseline | opstream | opstream ÷ baseline |',
    '|---|---|---|---|',
  );
  const row = (name: string, f: (s: ScriptedResult) => number, digits = 1): void => {
    const b = runs.map((r) => f(r.baseline));
    const o = runs.map((r) => f(r.opstream));
    L.push(
      `| ${name} | ${spread(b, digits)} | ${spread(o, digits)} | ${spread(
        runs.map((_, i) => o[i] / b[i]),
        2,
      )} |`,
    );
  };
  row('RU per operation', (s) => s.requestUnitsPerOp ?? NaN);
  row('RU per operation above the idle rate', aboveIdle);
  row('RU per idle second', (s) => s.idleRequestUnitsPerSecond ?? NaN, 2);
  row('Cosmos requests per operation', (s) => s.cosmosRequestsPerOp);
  row('RU per request', (s) => (s.requestUnitsPerOp ?? NaN) / s.cosmosRequestsPerOp, 2);
  L.push(
    '',
    '| run (finished) | load average (1 min) before → after | baseline RU/op | opstream RU/op | ratio | baseline RU/idle s | opstream RU/idle s |',
    '|---|---|---|---|---|---|---|',
  );
  runs.forEach((r, i) => {
    const [before, after] = r.report.scriptedMachine.loadAverage;
    L.push(
      `| ${i + 1} (${r.report.date.slice(11, 16)} UTC) | ${fmt(before)} → ${fmt(after)} | ${fmt(r.baseline.requestUnitsPerOp)} | ${fmt(r.opstream.requestUnitsPerOp)} | ${fmt((r.opstream.requestUnitsPerOp ?? NaN) / (r.baseline.requestUnitsPerOp ?? NaN), 2)} | ${fmt(r.baseline.idleRequestUnitsPerSecond, 2)} | ${fmt(r.opstream.idleRequestUnitsPerSecond, 2)} |`,
    );
  });
  L.push('', ...targetLines(runs), '');
  L.push(
    `Where the RUs go, per operation (mean over the runs, by the emulator's kind of request) — baseline: ${byKind(runs, (r) => r.baseline.requestUnitsPerOpByKind)}; opstream: ${byKind(runs, (r) => r.opstream.requestUnitsPerOpByKind)}.`,
    '',
    `Per idle second — baseline: ${byKind(runs, (r) => r.baseline.idleRequestUnitsPerSecondByKind, 2)}; opstream: ${byKind(runs, (r) => r.opstream.idleRequestUnitsPerSecondByKind, 2)}.`,
    '',
    ...byContainerLines(runs),
  );
  if (existsSync(NOTES_FILE)) L.push(readFileSync(NOTES_FILE, 'utf8').trim(), '');
  return L.join('\n');
}

function main(): void {
  const program = benchCommand(
    'request-units',
    'Request units of opstream and the polling baseline from two or more runs of the scripted phase, with their spread',
  )
    .argument('<run.json...>', 'the --json outputs of `node dist/bench/run.js --phases 1`, two or more (the spread needs two runs)')
    .option('--record', 'replace the "Request units" section of bench/results/request-units.md')
    .parse();
  const files = program.processedArgs[0] as string[];
  if (files.length < 2)
    program.error('error: give two or more --json outputs of `node dist/bench/run.js --phases 1` (the spread needs two runs)');
  const section = render(files.map(load));
  process.stdout.write(`${section}\n`);
  if (program.opts<{ record?: true }>().record) recordSection(RESULTS_FILE, SECTION, section, '## opstream vs the polling baseline');
}

main();

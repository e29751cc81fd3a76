/**
 * One instance under more load than it can take, with the queue's two policies side by side:
 *   started-first  the default: operations already started go before new ones (new keep 1 turn in 8)
 *   fifo           pipeline.startedFirst=false: first come, first served (what opstream did before)
 * in two conditions: an instance capped at a quarter core offered 25 ops/s (the scale-out phase's first
 * level), and one uncapped instance offered 100 ops/s (past the sweep's knee). Each level on a fresh
 * stack (emulator process, CS simulator, ARM receiver), the policies' order alternating by round so
 * drift hits both.
 *
 *   npm run build && node dist/bench/overload.js [--rounds N] [--record]
 *   node dist/bench/overload.js --render bench/results/overload/run.json [--record]   (the recorded run again, e.g. after editing the notes)
 *
 * `--record` writes the "Under overload" section of bench/results/overload.md and the levels to
 * bench/results/overload/run.json; the analysis in bench/results/overload.notes.md is included as is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { probeCpuQuota } from './harness/cpu-quota';
import { recordSection, resultsPath, writeRunData } from './harness/results-section';
import { startStack } from './harness/stack';
import { opstreamSystem } from './harness/system-under-test';
import { runLevel, type LevelResult } from './harness/throughput-phase';
import { benchCommand, progressLog, wholeNumber } from './harness/cli';

const SECTION = '## Under overload: started operations first vs first come, first served';
const AFTER = '## Request units: opstream vs the polling baseline';
const NOTES_FILE = resultsPath('overload').replace(/\.md$/, '.notes.md');
const RUN_FILE = resultsPath('overload', 'run.json');

const POLICIES: ReadonlyArray<{ name: string; env: Record<string, string> }> = [
  { name: 'started-first', env: {} },
  { name: 'fifo', env: { OPSTREAM_PIPELINE_STARTED_FIRST: 'false' } },
];

interface Condition {
  readonly name: string;
  readonly rate: number;
  readonly cpuPerInstance?: number;
}

const CONDITIONS: readonly Condition[] = [
  { name: 'quarter core, 25 ops/s', rate: 25, cpuPerInstance: 0.25 },
  { name: 'uncapped, 100 ops/s', rate: 100 },
];

/** The scale-out phase's window (full mode): long enough for an operation to go through dispatch, follow and notification many times over. */
const WINDOW = { windowMs: 40_000, warmupMs: 10_000, drainMs: 5_000, seed: 7, subscriptions: 128 };

interface Measured {
  readonly condition: string;
  readonly policy: string;
  readonly round: number;
  readonly loadBefore: number;
  readonly level: LevelResult;
}

const log = progressLog('overload');

async function measure(condition: Condition, policy: (typeof POLICIES)[number], round: number, quotaAvailable: boolean): Promise<Measured> {
  const stack = await startStack(`${policy.name} #${round}`);
  const loadBefore = loadavg()[0];
  try {
    const level = await runLevel(stack, opstreamSystem(policy.env), {
      ...WINDOW,
      rate: condition.rate,
      instances: 1,
      database: `overload-${policy.name}-${condition.rate}-${round}-${Date.now().toString(36)}`,
      ...(condition.cpuPerInstance !== undefined && quotaAvailable ? { cpuPerInstance: condition.cpuPerInstance } : {}),
    });
    return { condition: condition.name, policy: policy.name, round, loadBefore, level };
  } finally {
    await stack.close();
  }
}

const f = (x: number | undefined, digits = 1): string => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits));
const per = (xs: readonly Measured[], pick: (l: LevelResult) => number | undefined, digits = 1): string =>
  xs.map((m) => f(pick(m.level), digits)).join(' / ');

interface SavedRun {
  readonly rounds: number;
  readonly seconds: number;
  readonly quota: string;
  readonly date: string;
  readonly machine: string;
  readonly levels: Measured[];
}

function render(run: SavedRun): string {
  const { levels: all, rounds, seconds, quota } = run;
  const rows: string[] = [];
  for (const c of CONDITIONS) {
    for (const p of POLICIES) {
      const ms = all.filter((m) => m.condition === c.name && m.policy === p.name);
      rows.push(
        `| ${c.name} | ${p.name} | ${per(ms, (l) => l.completedPerSecond)} | ${per(ms, (l) => l.endToEnd.p50 / 1000)} | ${per(ms, (l) => l.cpuMsPerOp, 0)} | ${per(ms, (l) => l.cosmosRequestsPerOp)} | ${per(ms, (l) => l.csCallsPerOp, 2)} | ${per(ms, (l) => l.cpuCores, 2)} | ${ms.map((m) => f(m.loadBefore, 1)).join(' / ')} |`,
      );
    }
  }
  const ratio = (c: Condition): string => {
    const mean = (p: string): number => {
      const xs = all.filter((m) => m.condition === c.name && m.policy === p).map((m) => m.level.completedPerSecond);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    return `${c.name}: ${f(mean('started-first') / mean('fifo'), 2)}×`;
  };
  return [
    SECTION,
    '',
    `Command: \`npm run build && node dist/bench/overload.js --rounds ${rounds} --record\` (${run.date}, ${run.machine}; ${seconds} s; levels in bench/results/overload/run.json).`,
    `One opstream instance offered more than it can complete, open loop, ${WINDOW.windowMs / 1000} s windows with completions counted after ${WINDOW.warmupMs / 1000} s (the scale-out phase's), ${WINDOW.subscriptions} subscriptions, each level on a fresh stack; the two queue policies alternate first by round. ${quota}`,
    '`started-first` is the default (operations already started are handled before new ones, which keep one turn in eight); `fifo` is `pipeline.startedFirst=false`, one line in arrival order, as opstream handled them before. Figures per round (round 1 / round 2 …); per operation = over the operations completed in the window.',
    '',
    '| condition | policy | completed ops/s | e2e p50 s | CPU per op ms | Cosmos req/op | CS calls/op | instance CPU (cores) | load avg before |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Completed with started-first ÷ first come, first served (mean of the rounds): ${CONDITIONS.map(ratio).join('; ')}.`,
    '',
    ...(existsSync(NOTES_FILE) ? [readFileSync(NOTES_FILE, 'utf8').trim(), ''] : []),
  ].join('\n');
}

async function main(): Promise<void> {
  const opts = benchCommand(
    'overload',
    "One instance under more load than it can take, with the queue's two policies (started-first, fifo) side by side",
  )
    .option('--rounds <n>', "rounds, each measuring every condition and policy once (the policies' order alternating)", wholeNumber, 2)
    .option('--record', 'write the "Under overload" section of bench/results/overload.md and the levels to bench/results/overload/run.json')
    .option(
      '--render <file>',
      'run nothing: the section from a saved run (bench/results/overload/run.json), with --record into bench/results/overload.md',
    )
    .parse()
    .opts<{ rounds: number; record?: true; render?: string }>();
  const { rounds } = opts;
  const record = opts.record === true;
  const probe = probeCpuQuota();
  const quotaAvailable = 'mechanism' in probe;
  const quota = quotaAvailable
    ? `The quarter-core instance runs in a ${probe.mechanism} group of its own with a CPU quota of 0.25 core.`
    : `No CPU quota here (${probe.unavailable}): the "quarter core" instance ran unconstrained.`;
  if (opts.render) return output(JSON.parse(readFileSync(opts.render, 'utf8')) as SavedRun, record);
  const started = Date.now();
  const all: Measured[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? POLICIES : [...POLICIES].reverse();
    for (const condition of CONDITIONS) {
      for (const policy of order) {
        log(`round ${round}: ${condition.name}, ${policy.name}`);
        const m = await measure(condition, policy, round, quotaAvailable);
        all.push(m);
        log(
          `  ${m.level.completedPerSecond.toFixed(1)} ops/s completed, e2e p50 ${m.level.endToEnd.p50} ms, ${f(m.level.cpuMsPerOp, 0)} ms CPU/op, ${m.level.csCallsPerOp.toFixed(2)} CS calls/op`,
        );
      }
    }
  }
  const run: SavedRun = {
    rounds,
    seconds: Math.round((Date.now() - started) / 1000),
    quota,
    date: new Date().toISOString().slice(0, 10),
    machine: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}`,
    levels: all,
  };
  if (record) writeRunData(RUN_FILE, run);
  output(run, record);
}

function output(run: SavedRun, record: boolean): void {
  const section = render(run);
  if (record) recordSection(resultsPath('overload'), SECTION, section, AFTER);
  process.stdout.write(`${section}\n`, () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`overload: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

/**
 * opstream against the polling baseline it replaces, side by side in one run (`npm run bench`,
 * `npm run bench -- --quick`). See bench/RESULTS.md "## opstream vs the polling baseline" for what
 * is measured and how; bench/harness/ holds the pieces.
 *
 * Phases:
 *   1. scripted workload on both systems at once, each on its own emulator + CS simulator
 *      (reaction, completion lag, end-to-end, CS calls and Cosmos requests per operation), then idle;
 *   2. throughput: one instance at increasing offered load, one system at a time (each measurement
 *      on a fresh stack);
 *   3. scale-out: opstream with 1, 2, 3 instances at a load above one instance's saturation;
 *   4. profile: one opstream instance under --cpu-prof at the load it completed most at.
 * Flags: --quick (under 3 minutes; leaves RESULTS.md alone unless --record), --no-record (full run without
 * touching RESULTS.md), --json <file> (all figures; a recorded run also writes bench/opstream-vs-baseline.json),
 * --profile (profile in quick mode too), --render <file> (rewrite the section from a saved --json).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { machineCpu } from './harness/proc-stats';
import { Child } from './harness/child-process';
import { runScripted, type ScriptedResult } from './harness/scripted-phase';
import { runLevel, type LevelResult } from './harness/throughput-phase';
import { startStack, type Stack } from './harness/stack';
import { baselineSystem, opstreamSystem, type SystemUnderTest } from './harness/system-under-test';
import { summarizeProfile, type ProfileSummary } from './harness/cpu-profile';
import { recordResults, type BenchReport } from './harness/report';

const QUICK = process.argv.includes('--quick');
/** Full runs are the record; a quick run writes RESULTS.md only when asked (--record). */
const RECORD = process.argv.includes('--record') || (!QUICK && !process.argv.includes('--no-record'));
const jsonAt = process.argv.indexOf('--json');
const JSON_OUT = jsonAt > 0 ? process.argv[jsonAt + 1] : undefined;

/** Everything a mode fixes. Quick shrinks the baseline's intervals and CS durations by 10 (together). */
export const MODES = {
  quick: {
    baseline: { scanIntervalMs: 3_000, passIntervalMs: 1_000 },
    scripted: { subscriptions: 4, clustersPerSubscription: 2, durationScale: 0.1, idleMs: 10_000 },
    sweep: { opstream: [10, 40], baseline: [10] },
    windowMs: 12_000,
    warmupMs: 4_000,
    baselineWindowMs: 12_000,
    baselineWarmupMs: 6_000,
    scaleOut: { rate: 60, instances: [1, 2] },
    profile: false,
  },
  full: {
    baseline: { scanIntervalMs: 30_000, passIntervalMs: 10_000 },
    scripted: { subscriptions: 8, clustersPerSubscription: 4, durationScale: 1, idleMs: 60_000 },
    sweep: { opstream: [10, 20, 40, 60, 80, 100, 120], baseline: [10, 20, 40, 80] },
    windowMs: 40_000,
    warmupMs: 10_000,
    baselineWindowMs: 150_000,
    baselineWarmupMs: 60_000,
    scaleOut: { rate: 140, instances: [1, 2, 3, 4] },
    profile: true,
  },
} as const;

const SEED = 7;

/**
 * Each throughput measurement gets a stack of its own (new emulator process, CS simulator, ARM
 * receiver): state piling up in the harness over a long run (every notification ever received…)
 * otherwise slows the later measurements.
 */
async function onFreshStack<T>(label: string, fn: (stack: Stack) => Promise<T>): Promise<T> {
  const stack = await startStack(label);
  try {
    return await fn(stack);
  } finally {
    await stack.close();
  }
}
/** Subscriptions the throughput load is spread over (per-subscription locks serialise each one). */
const SUBSCRIPTIONS = 128;

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function main(): Promise<void> {
  const mode = QUICK ? MODES.quick : MODES.full;
  const started = Date.now();
  const commit = gitCommit();
  const runId = Date.now().toString(36);
  const baseline = baselineSystem(mode.baseline);
  const opstream = opstreamSystem();
  log(`mode ${QUICK ? 'quick' : 'full'}; starting two stacks (emulator child process + CS simulator + ARM receiver each)`);
  const stacks: Record<'baseline' | 'opstream', Stack> = { baseline: await startStack('baseline'), opstream: await startStack('opstream') };
  let stacksOpen = true;
  const closeStacks = async (): Promise<void> => {
    if (!stacksOpen) return;
    stacksOpen = false;
    await Promise.all(Object.values(stacks).map((s) => s.close()));
  };
  try {
    log('phase 1: scripted workload, both systems at once');
    const phase1Machine = machineCpu();
    const phase1Load = loadavg()[0];
    const phase1Start = Date.now();
    const scriptedOptions = (system: SystemUnderTest) => ({
      ...mode.scripted,
      seed: SEED,
      terminalTimeoutMs: 600_000,
      warmUp: true,
      maxThinkMs: mode.baseline.scanIntervalMs,
      database: `scripted-${system.name}-${runId}`,
    });
    const scripted: ScriptedResult[] = await Promise.all([
      runScripted(stacks.baseline, baseline, scriptedOptions(baseline)),
      runScripted(stacks.opstream, opstream, scriptedOptions(opstream)),
    ]);
    const phase1MachineAfter = machineCpu();
    const scriptedMachine = {
      busyCores: phase1Machine && phase1MachineAfter ? (phase1MachineAfter.busyMs - phase1Machine.busyMs) / (Date.now() - phase1Start) : undefined,
      loadAverage: [phase1Load, loadavg()[0]] as [number, number],
    };
    for (const s of scripted) log(`  ${s.system}: ${JSON.stringify({ ops: s.operations, byStatus: s.byStatus, reactionP99: s.reaction.p99, lagP99: s.completionLag.p99 })}`);

    await closeStacks();

    log('phase 2: throughput sweep, one instance, one system at a time, each on a fresh stack');
    const sweep: LevelResult[] = [];
    for (const rate of mode.sweep.baseline) {
      const r = await onFreshStack(`baseline-${rate}`, (stack) => runLevel(stack, baseline, { rate, instances: 1, windowMs: mode.baselineWindowMs, warmupMs: mode.baselineWarmupMs, drainMs: 60_000, seed: SEED, subscriptions: SUBSCRIPTIONS, database: `tp-baseline-${rate}-${runId}` }));
      sweep.push(r);
      log(`  baseline @${rate}/s: ${r.completedPerSecond.toFixed(1)}/s completed, e2e p50 ${r.endToEnd.p50} ms`);
    }
    for (const rate of mode.sweep.opstream) {
      const r = await onFreshStack(`opstream-${rate}`, (stack) =>
        runLevel(stack, opstream, { rate, instances: 1, windowMs: mode.windowMs, warmupMs: mode.warmupMs, drainMs: 30_000, seed: SEED, subscriptions: SUBSCRIPTIONS, database: `tp-opstream-${rate}-${runId}` }),
      );
      sweep.push(r);
      log(`  opstream @${rate}/s: ${r.completedPerSecond.toFixed(1)}/s completed, e2e p50 ${r.endToEnd.p50} ms, cpu ${r.cpuCores?.toFixed(2)} cores`);
    }

    log('phase 3: scale-out');
    const scaleOut: LevelResult[] = [];
    for (const n of mode.scaleOut.instances) {
      const r = await onFreshStack(`scale-out-${n}`, (stack) =>
        runLevel(stack, opstream, { rate: mode.scaleOut.rate, instances: n, windowMs: mode.windowMs, warmupMs: mode.warmupMs, drainMs: 30_000, seed: SEED, subscriptions: SUBSCRIPTIONS, database: `so-${n}-${runId}` }),
      );
      scaleOut.push(r);
      log(`  ${n} instance(s) @${mode.scaleOut.rate}/s: ${r.completedPerSecond.toFixed(1)}/s completed`);
    }

    let profile: ProfileSummary | undefined;
    if (mode.profile || process.argv.includes('--profile')) {
      log('phase 4: CPU profile of one opstream instance at its best load');
      const dir = join(__dirname, '../../bench/results/tmp', `profile-${runId}`);
      mkdirSync(dir, { recursive: true });
      // At the load where one instance completed the most (its capacity), not past it.
      const rate = sweep.filter((l) => l.system === 'opstream').sort((x, y) => y.completedPerSecond - x.completedPerSecond)[0]?.rate ?? Math.max(...mode.sweep.opstream);
      const r = await onFreshStack('profile', (stack) =>
        runLevel(stack, opstream, { rate, instances: 1, windowMs: mode.windowMs, warmupMs: mode.warmupMs, drainMs: 10_000, seed: SEED, subscriptions: SUBSCRIPTIONS, database: `prof-${runId}`, cpuProfDir: dir }),
      );
      profile = summarizeProfile(dir, r);
    }

    const report: BenchReport = {
      mode: QUICK ? 'quick' : 'full',
      commit,
      date: new Date().toISOString(),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`,
      node: process.version,
      baselineIntervals: mode.baseline,
      scripted,
      scriptedMachine,
      sweep,
      scaleOut,
      scaleOutRate: mode.scaleOut.rate,
      profile,
      wallSeconds: Math.round((Date.now() - started) / 1000),
    };
    if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(report, null, 2));
    if (RECORD) {
      writeFileSync(join(__dirname, '../../bench/opstream-vs-baseline.json'), `${JSON.stringify(report, null, 2)}\n`);
      recordResults(report);
      log('bench/RESULTS.md, bench/opstream-vs-baseline.svg and bench/opstream-vs-baseline.json written');
    }
    log(`done in ${report.wallSeconds} s`);
  } finally {
    await closeStacks();
  }
}

function gitCommit(): string | undefined {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src', 'processors', 'infra', 'bench/baseline'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+dirty` : head;
  } catch {
    return undefined;
  }
}

/** `--render <report.json>`: rewrites the section and the chart from a saved run (after editing the notes). */
function render(file: string): void {
  recordResults(JSON.parse(readFileSync(file, 'utf8')) as BenchReport);
  log(`bench/RESULTS.md and bench/opstream-vs-baseline.svg rewritten from ${file}`);
}

// Interrupted: stop the emulators and systems this run started, then leave.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the child processes`);
    Child.killAll();
    setTimeout(() => process.exit(130), 500);
  });
}

const renderAt = process.argv.indexOf('--render');
(renderAt > 0 ? Promise.resolve(render(process.argv[renderAt + 1])) : main()).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

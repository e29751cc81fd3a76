/**
 * The scripted workload's per-operation counts, both systems side by side, in a few minutes: CS calls,
 * Cosmos requests and request units per operation (in all and above each system's idle rate), CS
 * calls by step and kind (bench/harness/read-breakdown.ts) and opstream's Cosmos requests by step and
 * purpose (from its traces: bench/harness/cosmos-breakdown.ts).
 *
 * Counts depend on how the systems' intervals compare with CS's durations, not on how fast the
 * machine is: every duration and interval of both systems is multiplied by one factor (`--scale`,
 * 0.25 by default: the baseline scans every 7.5 s and passes every 2.5 s, CS phases and think times
 * are a quarter, opstream's follow ceiling is 2.5 s and its tick 250 ms), so a run takes about two
 * minutes and its counts come close to the full run's (`npm run bench`, scale 1). Its figures are for
 * development; the record is the full run's.
 *
 *   npm run build && node dist/bench/counts.js [--scale 0.25] [--runs 1] [--json file]
 */
import { writeFileSync } from 'node:fs';
import { startOtlpReceiver } from '@opstream/otlp-receiver';
import { Child } from './harness/child-process';
import { benchCommand, positive, progressLog, wholeNumber } from './harness/cli';
import { cosmosBreakdown, cosmosBreakdownLines, operationTrace, type StepCosmos } from './harness/cosmos-breakdown';
import { breakdownLines, type StepBreakdown } from './harness/read-breakdown';
import type { UnitsByContainer } from './harness/request-units';
import { runScripted, type ScriptedResult } from './harness/scripted-phase';
import { startStack, type Stack } from './harness/stack';
import { baselineSystem, opstreamSystem } from './harness/system-under-test';

const log = progressLog('counts');

/** Production values (scale 1): the baseline's intervals and opstream's follow timing. */
const BASELINE = { scanIntervalMs: 30_000, passIntervalMs: 10_000 };
const FOLLOW = { initialDelayMs: 250, maxDelayMs: 10_000, batchTickMs: 1_000 };

export interface CountsRun {
  readonly scale: number;
  readonly date: string;
  readonly systems: Record<string, SystemCounts>;
  /** CS calls per operation by step and kind of call, per system. */
  readonly csByStep: Record<string, Record<string, StepBreakdown> | undefined>;
  /** opstream's Cosmos requests within handlings, by step and purpose. */
  readonly cosmosByStep: Record<string, StepCosmos>;
  /** The handlings of one operation of each step as span trees (`--trace`). */
  readonly traces?: Record<string, string[]>;
}

export interface SystemCounts {
  readonly operations: number;
  readonly csCallsPerOp: number;
  readonly cosmosRequestsPerOp: number;
  readonly cosmosRequestsPerOpAboveIdle: number;
  readonly requestUnitsPerOp: number;
  readonly requestUnitsPerOpAboveIdle: number;
  readonly csCallsByEndpoint: Record<string, number>;
  /** Cosmos requests per operation by container and kind, during the workload. */
  readonly requestsByContainer: UnitsByContainer;
  /** Request units per operation by container and kind, during the workload. */
  readonly requestUnitsByContainer: UnitsByContainer;
  readonly terminal: Record<string, number>;
}

function countsOf(r: ScriptedResult): SystemCounts {
  const idleShare = (perSecond: number): number => (perSecond * r.wallMs) / 1000 / r.operations;
  return {
    operations: r.operations,
    csCallsPerOp: r.csCallsPerOp,
    cosmosRequestsPerOp: r.cosmosRequestsPerOp,
    cosmosRequestsPerOpAboveIdle: r.cosmosRequestsPerOp - idleShare(r.idleCosmosPerSecond),
    requestUnitsPerOp: r.requestUnitsPerOp ?? NaN,
    requestUnitsPerOpAboveIdle: (r.requestUnitsPerOp ?? NaN) - idleShare(r.idleRequestUnitsPerSecond ?? NaN),
    csCallsByEndpoint: r.csCallsByEndpoint,
    requestsByContainer: r.requestsPerOpByContainer ?? {},
    requestUnitsByContainer: r.requestUnitsPerOpByContainer ?? {},
    terminal: r.byStatus,
  };
}

async function runOnce(
  scale: number,
  subscriptions: number,
  clustersPerSubscription: number,
  idleMs: number,
  seed: number,
  trace: boolean,
): Promise<CountsRun> {
  const scaled = (ms: number): number => Math.max(1, Math.round(ms * scale));
  const baseline = baselineSystem({ scanIntervalMs: scaled(BASELINE.scanIntervalMs), passIntervalMs: scaled(BASELINE.passIntervalMs) });
  const otlp = await startOtlpReceiver();
  const opstream = opstreamSystem({
    OPSTREAM_FOLLOW_INITIAL_DELAY_MS: String(scaled(FOLLOW.initialDelayMs)),
    OPSTREAM_FOLLOW_MAX_DELAY_MS: String(scaled(FOLLOW.maxDelayMs)),
    OPSTREAM_FOLLOW_BATCH_TICK_MS: String(scaled(FOLLOW.batchTickMs)),
    OPSTREAM_TRACING_OTLP_ENDPOINT: otlp.url,
  });
  const stepOf = new Map<string, string>();
  const stacks: Stack[] = [];
  try {
    stacks.push(await startStack('baseline'), await startStack('opstream'));
    const runId = Date.now().toString(36);
    const options = (name: string) => ({
      subscriptions,
      clustersPerSubscription,
      seed,
      durationScale: scale,
      idleMs,
      terminalTimeoutMs: 600_000,
      warmUp: true,
      maxThinkMs: scaled(BASELINE.scanIntervalMs),
      database: `counts-${name}-${runId}`,
    });
    log(
      `scale ${scale}: ${subscriptions} subscriptions × ${clustersPerSubscription} cluster lifecycles × 6 steps on both systems at once, then ${idleMs / 1000} s idle`,
    );
    const [b, o] = await Promise.all([
      runScripted(stacks[0], baseline, options('baseline')),
      runScripted(stacks[1], opstream, { ...options('opstream'), onOperation: (op, step) => stepOf.set(op.operationId, step) }),
    ]);
    const perStep: Record<string, number> = {};
    const sample: Record<string, string> = {};
    for (const [id, step] of stepOf) {
      perStep[step] = (perStep[step] ?? 0) + 1;
      sample[step] ??= id;
    }
    return {
      scale,
      date: new Date().toISOString(),
      systems: { baseline: countsOf(b), opstream: countsOf(o) },
      csByStep: { baseline: b.callsByStepAndBucket, opstream: o.callsByStepAndBucket },
      cosmosByStep: cosmosBreakdown(otlp.spans(), (id) => stepOf.get(id), perStep),
      ...(trace
        ? { traces: Object.fromEntries(Object.entries(sample).map(([step, id]) => [step, operationTrace(otlp.spans(), id)])) }
        : {}),
    };
  } finally {
    await Promise.all(stacks.map((s) => s.close()));
    await otlp.close();
  }
}

/** `Operations 9.1 (write 4.0, pointRead 3.2 …); Locks …`, largest first. */
function containerLine(byContainer: UnitsByContainer): string {
  // Request units carry their container's `total` beside the kinds: the sum is made here.
  const kindsOf = (all: Record<string, number | undefined>): Array<[string, number | undefined]> =>
    Object.entries(all).filter(([kind]) => kind !== 'total');
  const total = (all: Record<string, number | undefined>): number => kindsOf(all).reduce<number>((s, [, n]) => s + (n ?? 0), 0);
  return Object.entries(byContainer)
    .map(([container, kinds]) => ({ container, kinds, sum: total(kinds) }))
    .sort((a, b) => b.sum - a.sum)
    .map(({ container, kinds, sum }) => {
      const parts = kindsOf(kinds)
        .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
        .map(([kind, n]) => `${kind} ${(n ?? 0).toFixed(2)}`);
      return `${container} ${sum.toFixed(2)} (${parts.join(', ')})`;
    })
    .join('; ');
}

function report(run: CountsRun): string {
  const { baseline: b, opstream: o } = run.systems;
  const row = (label: string, x: number, y: number, digits = 2): string =>
    `| ${label} | ${x.toFixed(digits)} | ${y.toFixed(digits)} | ${(y / x).toFixed(2)} |`;
  const lines = [
    `scale ${run.scale}, ${o.operations} operations each; terminal: baseline ${JSON.stringify(b.terminal)}, opstream ${JSON.stringify(o.terminal)}`,
    '| per operation | baseline | opstream | opstream ÷ baseline |',
    '|---|---|---|---|',
    row('CS calls', b.csCallsPerOp, o.csCallsPerOp),
    row('Cosmos requests', b.cosmosRequestsPerOp, o.cosmosRequestsPerOp, 1),
    row('Cosmos requests above the idle rate', b.cosmosRequestsPerOpAboveIdle, o.cosmosRequestsPerOpAboveIdle, 1),
    row('RU', b.requestUnitsPerOp, o.requestUnitsPerOp, 1),
    row('RU above the idle rate', b.requestUnitsPerOpAboveIdle, o.requestUnitsPerOpAboveIdle, 1),
    '',
    `CS calls by endpoint — baseline: ${JSON.stringify(b.csCallsByEndpoint)}`,
    `CS calls by endpoint — opstream: ${JSON.stringify(o.csCallsByEndpoint)}`,
    '',
    'Cosmos requests per operation during the workload, by container and kind (idle polls included):',
    ...Object.entries(run.systems).map(([system, c]) => `${system}: ${containerLine(c.requestsByContainer)}`),
    '',
    'Request units per operation during the workload, by container and kind (idle polls included):',
    ...Object.entries(run.systems).map(([system, c]) => `${system}: ${containerLine(c.requestUnitsByContainer)}`),
  ];
  for (const [system, byStep] of Object.entries(run.csByStep))
    if (byStep) lines.push('', `CS calls per operation by step (${system}):`, ...breakdownLines(byStep));
  lines.push(
    '',
    'opstream Cosmos requests per operation within handlings, by step and purpose:',
    ...cosmosBreakdownLines(run.cosmosByStep),
  );
  for (const [step, trace] of Object.entries(run.traces ?? {})) lines.push('', `one ${step} operation, handling by handling:`, ...trace);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const program = benchCommand(
    'counts',
    "The scripted workload's per-operation counts (CS calls, Cosmos requests, RU), both systems side by side, time scaled down uniformly",
  )
    .option('--scale <factor>', 'every duration and interval of both systems and of CS multiplied by this', positive, 0.25)
    .option('--runs <n>', 'runs, one after the other', wholeNumber, 1)
    .option('--subscriptions <n>', 'subscriptions (each runs its lifecycles one after the other)', wholeNumber, 8)
    .option('--clusters <n>', 'cluster lifecycles per subscription', wholeNumber, 4)
    .option('--idle-ms <ms>', "idle period that measures each system's idle rate", positive, 20_000)
    .option('--seed <n>', 'seed of the workload, think times and CS durations', wholeNumber, 7)
    .option('--trace', "print one operation of each step handling by handling (opstream's spans)")
    .option('--json <file>', 'also write every figure as JSON (with several runs: file-1.json …)')
    .parse();
  const opts = program.opts<{
    scale: number;
    runs: number;
    subscriptions: number;
    clusters: number;
    idleMs: number;
    seed: number;
    json?: string;
    trace?: boolean;
  }>();
  for (let i = 1; i <= opts.runs; i++) {
    const run = await runOnce(opts.scale, opts.subscriptions, opts.clusters, opts.idleMs, opts.seed, opts.trace === true);
    process.stdout.write(`${opts.runs > 1 ? `run ${i}: ` : ''}${report(run)}\n\n`);
    if (opts.json)
      writeFileSync(opts.runs > 1 ? opts.json.replace(/(\.json)?$/, `-${i}.json`) : opts.json, `${JSON.stringify(run, null, 2)}\n`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    Child.killAll();
    setTimeout(() => process.exit(130), 500);
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`counts: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

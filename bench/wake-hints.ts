/**
 * Service Bus in opstream, measured side by side (issue 17 sections 2 and 3, issue 18's RU per
 * operation): the scripted workload (bench/harness/scripted-phase.ts) run on opstream once per
 * configuration below, each on a fresh stack (Cosmos emulator child process, CS simulator, ARM
 * receiver) and a fresh local Service Bus, one after the other; then the polling baseline, with
 * its production intervals, runs the same workload on a stack of its own (its figures are the
 * reference for RU per operation).
 *
 *   npm run build && node dist/bench/wake-hints.js [--rounds N] [--record] [--json file] [--only key,key] [--quick]
 *   node dist/bench/wake-hints.js --render bench/results/wake-hints/run.json [--record]   (the recorded run again, e.g. after editing the notes)
 *
 * Configurations (`processor.*` and `serviceBus.*` settings of `opstream run`):
 *   poll-100 / poll-500 / poll-2000  polling only, idle ceiling changefeed.maxPollDelayMs (100 = the default)
 *   events                           CS simulator publishes state changes, opstream receives them; polling 100 ms
 *   hints                            the frontend sends a hint after each write; serviceBus.hintsMaxPollDelayMs 5 s
 *   hints-lost                       as hints, with half the hint sends refused by Service Bus (fault `refuse-send`)
 * Each round runs every configuration once (rounds interleave, so a slow spell of the machine hits
 * every configuration alike); `--rounds` (default 2) gives the run-to-run spread.
 */
import { existsSync, writeFileSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { OPERATION_HINTS_ENTITY } from '@opstream/frontend-simulator';
import { CS_EVENTS_TOPIC } from '@opstream/clusters-service-simulator/event-publisher';
import { Child } from './harness/child-process';
import { resultsPath, writeRunData } from './harness/results-section';
import { runScripted, type ScriptedResult } from './harness/scripted-phase';
import { breakdownLines } from './harness/read-breakdown';
import { PARTITIONS, startStack, type Stack } from './harness/stack';
import { baselineSystem, opstreamSystem } from './harness/system-under-test';
import { InvalidArgumentError } from 'commander';
import { benchCommand, progressLog, wholeNumber } from './harness/cli';

const SEED = 17;
const HINTS_CEILING_MS = 5_000;
const LOSS = 0.5;
/** Production intervals: the baseline's RU per operation is only meaningful with them. */
const BASELINE_INTERVALS = { scanIntervalMs: 30_000, passIntervalMs: 10_000 };
const RESULTS_FILE = resultsPath('wake-hints');
const RUN_FILE = resultsPath('wake-hints', 'run.json');
/** The analysis of the recorded figures, included in the section as is. */
const NOTES_FILE = resultsPath('wake-hints').replace(/\.md$/, '.notes.md');
const BEGIN = '<!-- service-bus-features:begin (written by `node dist/bench/wake-hints.js --record`; do not edit by hand) -->';
const END = '<!-- service-bus-features:end -->';

const SB_CONFIG = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'sbemulatorns',
        Queues: [{ Name: OPERATION_HINTS_ENTITY, Properties: {} }],
        Topics: [{ Name: CS_EVENTS_TOPIC, Properties: {}, Subscriptions: [{ Name: 'opstream', Properties: {} }] }],
      },
    ],
    Logging: { Type: 'File' },
  },
};

interface Config {
  readonly key: string;
  readonly label: string;
  /** Idle poll ceiling in force, ms. */
  readonly ceilingMs: number;
  readonly csEvents?: boolean;
  readonly hints?: boolean;
  readonly loss?: number;
}

const CONFIGS: readonly Config[] = [
  { key: 'poll-100', label: 'polling only, ceiling 100 ms (default)', ceilingMs: 100 },
  { key: 'poll-500', label: 'polling only, ceiling 500 ms', ceilingMs: 500 },
  { key: 'poll-2000', label: 'polling only, ceiling 2 s', ceilingMs: 2_000 },
  { key: 'events', label: 'CS events on, polling 100 ms', ceilingMs: 100, csEvents: true },
  { key: 'hints', label: `hints on, ceiling ${HINTS_CEILING_MS / 1000} s`, ceilingMs: HINTS_CEILING_MS, hints: true },
  {
    key: 'hints-lost',
    label: `hints on, ceiling ${HINTS_CEILING_MS / 1000} s, ${LOSS * 100} % of hints lost`,
    ceilingMs: HINTS_CEILING_MS,
    hints: true,
    loss: LOSS,
  },
];

/** `--only key,key`: configurations by key, and `baseline`. */
function configKeys(value: string): string[] {
  const keys = value.split(',');
  const known = [...CONFIGS.map((c) => c.key), 'baseline'];
  const unknown = keys.filter((k) => !known.includes(k));
  if (unknown.length) throw new InvalidArgumentError(`unknown ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return keys;
}

const program = benchCommand(
  'wake-hints',
  'The scripted workload on opstream once per Service Bus configuration, then on the polling baseline, side by side',
)
  .option('--rounds <n>', 'rounds, each running every configuration once (interleaved: drift hits all alike)', wholeNumber, 2)
  .option('--record', 'write bench/results/wake-hints/run.json and the section of bench/results/wake-hints.md')
  .option('--json <file>', 'also write every measurement as JSON (what --render reads)')
  .option('--only <keys>', `only these configurations (comma-separated: ${CONFIGS.map((c) => c.key).join(', ')}, baseline)`, configKeys)
  .option('--quick', 'a few lifecycles and a short idle period, for development: never recorded')
  .option(
    '--render <file>',
    'run nothing: the section from a saved --json run (e.g. bench/results/wake-hints/run.json), with --record into bench/results/wake-hints.md',
  )
  .parse();
const opts = program.opts<{ rounds: number; record?: true; json?: string; only?: string[]; quick?: true; render?: string }>();
const ROUNDS = opts.rounds;
const RECORD = opts.record === true;
const JSON_OUT = opts.json;
const ONLY = opts.only;
/** `--quick` (development only, never recorded): a few lifecycles and a short idle period. */
const QUICK = opts.quick === true;
if (QUICK && RECORD) program.error('error: --quick runs are too small to record');
const WORKLOAD = QUICK
  ? { subscriptions: 1, clustersPerSubscription: 2, durationScale: 0.2, idleMs: 10_000, maxThinkMs: 2_000 }
  : { subscriptions: 3, clustersPerSubscription: 4, durationScale: 0.5, idleMs: 30_000, maxThinkMs: 5_000 };

interface Measurement {
  readonly config: string;
  readonly round: number;
  readonly loadBefore: number;
  readonly loadAfter: number;
  readonly result: ScriptedResult;
}

const log = progressLog('wake-hints');

function settingsOf(config: Config, bus: ServiceBusEmulator): Record<string, string> {
  const env: Record<string, string> = { OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: String(config.hints ? 100 : config.ceilingMs) };
  if (config.csEvents || config.hints) env.OPSTREAM_SERVICE_BUS_CONNECTION_STRING = bus.connectionString;
  if (config.hints)
    Object.assign(env, { OPSTREAM_SERVICE_BUS_HINTS: 'true', OPSTREAM_SERVICE_BUS_HINTS_MAX_POLL_DELAY_MS: String(config.ceilingMs) });
  return env;
}

function scriptedOptions(database: string, hints?: { connectionString: string }) {
  return { ...WORKLOAD, seed: SEED, terminalTimeoutMs: 300_000, warmUp: true, database, tapPickup: true, ...(hints ? { hints } : {}) };
}

async function measure(config: Config, round: number): Promise<Measurement> {
  const bus = await startServiceBus({ port: 0, config: SB_CONFIG });
  let stack: Stack | undefined;
  try {
    stack = await startStack(`opstream ${config.key}`, config.csEvents ? { csServiceBus: bus.connectionString } : {});
    if (config.loss)
      bus.setFaults({ kind: 'refuse-send', entity: OPERATION_HINTS_ENTITY, probability: config.loss, description: 'lost hints' });
    const loadBefore = loadavg()[0];
    const result = await runScripted(
      stack,
      opstreamSystem(settingsOf(config, bus)),
      scriptedOptions(`sb-${config.key}-${round}-${Date.now()}`, config.hints ? { connectionString: bus.connectionString } : undefined),
    );
    const m = { config: config.key, round, loadBefore, loadAfter: loadavg()[0], result };
    log(`  ${config.key}: ${summaryLine(result)}`);
    if (result.callsByStepAndBucket) for (const line of breakdownLines(result.callsByStepAndBucket)) log(`    ${line}`);
    return m;
  } finally {
    await stack?.close();
    await bus.close();
  }
}

async function measureBaseline(round: number): Promise<Measurement> {
  const stack = await startStack('baseline');
  try {
    const loadBefore = loadavg()[0];
    const result = await runScripted(stack, baselineSystem(BASELINE_INTERVALS), scriptedOptions(`sb-baseline-${round}-${Date.now()}`));
    log(`  baseline: ${summaryLine(result)}`);
    return { config: 'baseline', round, loadBefore, loadAfter: loadavg()[0], result };
  } finally {
    await stack.close();
  }
}

function summaryLine(r: ScriptedResult): string {
  return JSON.stringify({
    ops: r.operations,
    byStatus: r.byStatus,
    reactionP99: r.reaction.p99,
    lagP99: r.completionLag.p99,
    csPerOp: r.csCallsPerOp,
    readsPerOp: readsPerOp(r),
    idleCf: r.idleChangeFeedPerSecond,
    ruPerOp: r.requestUnitsPerOp,
  });
}

// ---- rendering ----

/** CS reads (status, search) per operation: the calls the follow and CS events decide; the rest start the CS work. */
function readsPerOp(r: ScriptedResult): number {
  const reads = Object.entries(r.csCallsByEndpoint)
    .filter(([endpoint]) => endpoint.startsWith('GET '))
    .reduce((sum, [, n]) => sum + n, 0);
  return reads / r.operations;
}

const fmt = (v: number | undefined, digits = 0): string =>
  v === undefined || !Number.isFinite(v)
    ? 'n/a'
    : v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** `a / b` of the rounds, in round order, e.g. `41 / 47`. */
function perRound(ms: readonly Measurement[], pick: (r: ScriptedResult) => number | undefined, digits = 0): string {
  return ms.map((m) => fmt(pick(m.result), digits)).join(' / ');
}

type Workload = typeof WORKLOAD;

/** Where a run was measured; a saved run says it (runs saved before it was recorded: "not recorded"). */
interface Machine {
  readonly cores: number;
  readonly node: string;
}
const THIS_MACHINE: Machine = { cores: cpus().length, node: process.version };

function render(all: readonly Measurement[], started: Date, workload: Workload = WORKLOAD, machine: Machine = THIS_MACHINE): string {
  const of = (key: string): Measurement[] => all.filter((m) => m.config === key).sort((a, b) => a.round - b.round);
  const base = of('baseline');
  const rounds = Math.max(...all.map((m) => m.round));
  const L: string[] = [
    BEGIN,
    '## Service Bus: wake-up hints, Clusters Service events, RU per operation (issue 17, issue 18)',
    '',
    `Command: \`npm run build && node dist/bench/wake-hints.js --rounds ${rounds} --record\` (${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine.cores} cores shared with other work, Node ${machine.node}).`,
    `The scripted workload (${workload.subscriptions * workload.clustersPerSubscription} cluster lifecycles × 6 steps = ${all[0]?.result.operations ?? 'n/a'} operations, CS durations of the scripted profile × ${workload.durationScale}, ARM think time up to ${workload.maxThinkMs / 1000} s before each request, then ${workload.idleMs / 1000} s idle)`,
    `run on opstream once per configuration per round, each on a fresh stack (Cosmos emulator child process with ${PARTITIONS} feed ranges, CS simulator, local Service Bus in the harness), configurations one after the other, then the polling baseline (production intervals: scan ${BASELINE_INTERVALS.scanIntervalMs / 1000} s, pass ${BASELINE_INTERVALS.passIntervalMs / 1000} s) on the same workload and a stack of its own.`,
    'Every cell gives each round\'s figure, round 1 / round 2 (…): the spread is the difference. Definitions as in "opstream vs the polling baseline": reaction = first CS call about the resource − the frontend\'s acknowledged Operation write; completion lag = terminal write − CS done; idle change-feed requests counted by the emulator (the harness reads no change feed) over the idle period, divided by the ranges.',
    '',
    "**Reaction and idle cost** (issue 17 section 3). Pickup = the operation's first arrival on opstream's `changes` tap (change feed read and parsed) − the acknowledged write.",
    '',
    '| configuration | pickup p50 ms | pickup p99 ms | pickup max ms | reaction p50 ms | reaction p99 ms | idle change-feed req/s per range |',
    '|---|---|---|---|---|---|---|',
  ];
  const ratio = (m: Measurement): number =>
    (m.result.requestUnitsPerOp ?? NaN) / (base.find((b) => b.round === m.round)?.result.requestUnitsPerOp ?? NaN);
  const labelOf = (key: string): string =>
    key === 'baseline'
      ? `polling baseline (scan ${BASELINE_INTERVALS.scanIntervalMs / 1000} s)`
      : (CONFIGS.find((c) => c.key === key)?.label ?? key);
  const keys = [...CONFIGS.map((c) => c.key), 'baseline'].filter((k) => of(k).length > 0);
  for (const key of keys) {
    const ms = of(key);
    L.push(
      `| ${labelOf(key)} | ${perRound(ms, (r) => r.pickup?.p50)} | ${perRound(ms, (r) => r.pickup?.p99)} | ${perRound(ms, (r) => r.pickup?.max)} | ${perRound(ms, (r) => r.reaction.p50)} | ${perRound(ms, (r) => r.reaction.p99)} | ${perRound(ms, (r) => (r.idleChangeFeedPerSecond ?? NaN) / PARTITIONS, 2)} |`,
    );
  }
  L.push(
    '',
    '**Completion, Clusters Service calls and request units** (issue 17 section 2, issue 18).',
    '',
    '| configuration | completion lag p50 ms | completion lag p99 ms | CS calls / op | CS reads (GET) / op | RU / op | RU / op ÷ baseline (same round) | idle RU/s |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const key of keys) {
    const ms = of(key);
    L.push(
      `| ${labelOf(key)} | ${perRound(ms, (r) => r.completionLag.p50)} | ${perRound(ms, (r) => r.completionLag.p99)} | ${perRound(ms, (r) => r.csCallsPerOp, 2)} | ${perRound(ms, readsPerOp, 2)} | ${perRound(ms, (r) => r.requestUnitsPerOp, 1)} | ${key === 'baseline' ? '1' : ms.map((m) => fmt(ratio(m), 2)).join(' / ')} | ${perRound(ms, (r) => r.idleRequestUnitsPerSecond, 1)} |`,
    );
  }
  const hinted = of('hints');
  const lost = of('hints-lost');
  L.push(
    '',
    `Hints split (per round). With hints, operations whose hint Service Bus took: pickup p99 ${perRound(hinted, (r) => r.pickupHinted?.p99)} ms, reaction p99 ${perRound(hinted, (r) => r.reactionHinted?.p99)} ms (n ${perRound(hinted, (r) => r.reactionHinted?.n)}).`,
    `With ${LOSS * 100} % of hint sends refused (Service Bus fault \`refuse-send\`): operations whose hint went through, pickup p99 ${perRound(lost, (r) => r.pickupHinted?.p99)} ms (n ${perRound(lost, (r) => r.pickupHinted?.n)}); operations whose hint was lost, pickup p50 ${perRound(lost, (r) => r.pickupHintLost?.p50)}, p99 ${perRound(lost, (r) => r.pickupHintLost?.p99)}, max ${perRound(lost, (r) => r.pickupHintLost?.max)} ms, reaction max ${perRound(lost, (r) => r.reactionHintLost?.max)} ms (n ${perRound(lost, (r) => r.pickupHintLost?.n)}), against the ${HINTS_CEILING_MS} ms idle ceiling.`,
    '',
    '| round | configuration | load average (1 min) before → after |',
    '|---|---|---|',
    ...all.map((m) => `| ${m.round} | ${m.config} | ${fmt(m.loadBefore, 1)} → ${fmt(m.loadAfter, 1)} |`),
    '',
  );
  if (existsSync(NOTES_FILE)) L.push(readFileSync(NOTES_FILE, 'utf8').trim(), '');
  L.push(END);
  return L.join('\n');
}

function record(section: string): void {
  const current = readFileSync(RESULTS_FILE, 'utf8');
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + END.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(RESULTS_FILE, next);
}

async function main(): Promise<void> {
  const started = new Date();
  const configs = CONFIGS.filter((c) => !ONLY || ONLY.includes(c.key));
  const all: Measurement[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round} of ${ROUNDS}: ${configs.map((c) => c.key).join(', ')}, then the baseline`);
    for (const config of configs) all.push(await measure(config, round));
    // Alone, after opstream's configurations: running beside them would load some of them and not others.
    if (!ONLY || ONLY.includes('baseline')) all.push(await measureBaseline(round));
  }
  const section = render(all, started);
  process.stdout.write(`${section}\n`);
  const saved = { started, workload: WORKLOAD, machine: THIS_MACHINE, measurements: all };
  if (JSON_OUT) writeRunData(JSON_OUT, saved);
  if (RECORD) {
    writeRunData(RUN_FILE, saved);
    record(section);
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    Child.killAll();
    setTimeout(() => process.exit(130), 500);
  });
}

/** `--render file.json`: the section from a saved run. */
async function renderSaved(file: string): Promise<void> {
  const saved = JSON.parse(readFileSync(file, 'utf8')) as {
    started: string;
    workload: Workload;
    machine?: Machine;
    measurements: Measurement[];
  };
  const machine = saved.machine ?? { cores: THIS_MACHINE.cores, node: 'not recorded' };
  const section = render(saved.measurements, new Date(saved.started), saved.workload, machine);
  process.stdout.write(`${section}\n`);
  if (RECORD) record(section);
}

const RENDER = opts.render;
(RENDER ? renderSaved(RENDER) : main()).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`wake-hints: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

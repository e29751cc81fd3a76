/**
 * opstream and the polling baseline at production shape: hundreds of clusters and node pools in
 * flight at once, Clusters Service (CS) phases minutes long, both systems at their production
 * intervals — all time scaled down by one factor so that a run fits (bench/results/production-shape.md "Production
 * shape" says what is measured and how).
 *
 * - Load: `level` lifecycle slots per system, each running cluster lifecycles one after the other
 *   (create cluster → create node pool → update node pool → update cluster → delete node pool →
 *   delete cluster, every step sent once ARM was told the previous one is over, after a seeded think
 *   time), so that about `level` operations are in flight at any time; 4 slots per subscription.
 *   Slots start spread over one cluster install so their phases do not move in step.
 * - CS durations: PRODUCTION_PROFILE (cluster install ~10 min, node pool ~5 min, updates ~5 min,
 *   deletes ~3 min, log-normal with a long tail), multiplied by the scale.
 * - Scaled by the same factor: CS durations, think times, the baseline's scan (30 s) and pass (10 s),
 *   opstream's follow (first delay 250 ms, ceiling 10 s, tick 1 s) and, with events, its safety-net
 *   delay (30 s). Not scaled: the change feed's poll ceiling (100 ms) and lease timing, Cosmos and CS
 *   latencies (they are what they are). So CS calls and Cosmos requests per second caused by the
 *   load are converted to production seconds (× scale); the idle rate is stated apart, per real second.
 * - Measured after a warm-up, over a window: CS calls per second by endpoint, Cosmos requests and RU
 *   per second (the system's own, harness writes excluded), completion lag p50/p99 (CS done → terminal
 *   write) and reaction p99 of the operations that ended in the window, the instance's CPU.
 *
 *   npm run build && node dist/bench/production-shape.js --levels 100,300,1000 [--scale 0.1] [--window 240] [--systems baseline,opstream,opstream-events]
 *   node dist/bench/production-shape.js --levels 100 --window 60 --warmup 30 --no-record   # a short check
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { InvalidArgumentError } from 'commander';
import { CS_EVENTS_TOPIC } from '@opstream/clusters-service-simulator/event-publisher';
import { FrontendSimulator, type WrittenOperation } from '@opstream/frontend-simulator';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { Child } from './harness/child-process';
import { benchCommand, positive, progressLog } from './harness/cli';
import { readOutcomes, timingOf } from './harness/op-timing';
import { perContainer, systemRequestsByContainer, systemUnits, type UnitsByContainer } from './harness/request-units';
import { machineCpu } from './harness/proc-stats';
import { resultsPath, writeRunData } from './harness/results-section';
import { seededDurationsFor, hashSeed, type DurationProfile } from './harness/seeded-durations';
import { summarize, type Summary } from './harness/stats';
import { startStack, type Stack } from './harness/stack';
import { baselineSystem, opstreamSystem, type SystemUnderTest } from './harness/system-under-test';
import { seededRandom } from '@opstream/frontend-simulator';

const log = progressLog('production-shape');

/** Production-like CS phase durations (before scaling): minutes, log-normal, long tail. */
export const PRODUCTION_PROFILE: DurationProfile = {
  name: 'production',
  phases: {
    pendingMs: { median: 20_000, min: 5_000, max: 120_000 },
    validatingMs: { median: 40_000, min: 10_000, max: 300_000 },
    installingMs: { median: 540_000, min: 240_000, max: 2_400_000 },
    updatingMs: { median: 300_000, min: 60_000, max: 1_800_000 },
    deleteStartMs: { median: 10_000, min: 2_000, max: 60_000 },
    uninstallingMs: { median: 170_000, min: 60_000, max: 900_000 },
  },
  // Node pools install and update in about half a cluster's time (~5 min).
  nodePoolFactor: 0.5,
};

/** Production values, before scaling. */
const BASELINE = { scanIntervalMs: 30_000, passIntervalMs: 10_000 };
const FOLLOW = { initialDelayMs: 250, maxDelayMs: 10_000, batchTickMs: 1_000, eventsFollowDelayMs: 30_000 };
/** ARM clients think up to this long between a step's end and the next request (production). */
const MAX_THINK_MS = 60_000;
const SLOTS_PER_SUBSCRIPTION = 4;
const SEED = 11;

type SystemKey = 'baseline' | 'opstream' | 'opstream-events';

export interface LevelFigures {
  readonly system: SystemKey;
  readonly level: number;
  readonly scale: number;
  readonly windowSeconds: number;
  /** Operations in flight (written, not terminal), mean over the window's samples. */
  readonly inFlight: number;
  /** Operations that ended in the window, per production second. */
  readonly completedPerSecond: number;
  /** CS calls per production second, in all and by endpoint. */
  readonly csCallsPerSecond: number;
  readonly csCallsPerSecondByEndpoint: Record<string, number>;
  /** Cosmos requests and RU per production second caused by the load (above the idle rate), and the idle rate per real second. */
  readonly cosmosRequestsPerSecond: number;
  readonly requestUnitsPerSecond: number;
  readonly idleCosmosRequestsPerSecond: number;
  readonly idleRequestUnitsPerSecond: number;
  /** Cosmos requests per real second by container and kind: idle, and over the window (idle included). Where the cost goes;
   *  runs recorded before they were measured have neither. */
  readonly idleRequestsPerSecondByContainer?: UnitsByContainer;
  readonly requestsPerSecondByContainer?: UnitsByContainer;
  /** Real milliseconds (see the notes: the follow's part of it scales, fixed costs do not). */
  readonly completionLag: Summary;
  /** The same by kind of operation (`cluster Create`, `nodePool Delete` …): where a tail comes from. */
  readonly completionLagByKind: Record<string, Summary>;
  readonly reaction: Summary;
  /** Instance CPU, cores (real). */
  readonly cpuCores: number | undefined;
  readonly terminal: Record<string, number>;
  readonly loadAverage: [number, number];
  readonly machineBusyCores: number | undefined;
}

interface Options {
  levels: number[];
  scale: number;
  window: number;
  warmup: number;
  idle: number;
  systems: SystemKey[];
  json?: string;
  record: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const SB_CONFIG = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'sbemulatorns',
        Queues: [],
        Topics: [{ Name: CS_EVENTS_TOPIC, Properties: {}, Subscriptions: [{ Name: 'opstream', Properties: {} }] }],
      },
    ],
    Logging: { Type: 'File' },
  },
};

function systemFor(key: SystemKey, scale: number, bus: ServiceBusEmulator | undefined): SystemUnderTest {
  const scaled = (ms: number): string => String(Math.max(1, Math.round(ms * scale)));
  if (key === 'baseline')
    return baselineSystem({
      scanIntervalMs: Number(scaled(BASELINE.scanIntervalMs)),
      passIntervalMs: Number(scaled(BASELINE.passIntervalMs)),
    });
  return opstreamSystem({
    OPSTREAM_FOLLOW_INITIAL_DELAY_MS: scaled(FOLLOW.initialDelayMs),
    OPSTREAM_FOLLOW_MAX_DELAY_MS: scaled(FOLLOW.maxDelayMs),
    OPSTREAM_FOLLOW_BATCH_TICK_MS: scaled(FOLLOW.batchTickMs),
    ...(key === 'opstream-events' && bus
      ? {
          OPSTREAM_SERVICE_BUS_CONNECTION_STRING: bus.connectionString,
          OPSTREAM_SERVICE_BUS_FOLLOW_DELAY_MS: scaled(FOLLOW.eventsFollowDelayMs),
        }
      : {}),
  });
}

/** The subscription of slot `i` (SLOTS_PER_SUBSCRIPTION slots share one). */
function subscriptionOf(i: number): string {
  return `00000000-0000-4000-8000-${String(Math.floor(i / SLOTS_PER_SUBSCRIPTION)).padStart(12, '0')}`;
}

/** One lifecycle slot: cluster lifecycles one after the other until `stopping()`. */
async function slot(
  stack: Stack,
  frontend: FrontendSimulator,
  i: number,
  scale: number,
  stopping: () => boolean,
  written: WrittenOperation[],
  open: { count: number },
): Promise<void> {
  const sub = subscriptionOf(i);
  const rg = 'rg';
  const think = (what: string): Promise<void> => sleep(seededRandom(hashSeed(`${SEED}|${i}|${what}`))() * MAX_THINK_MS * scale);
  const waitFor = async (op: WrittenOperation): Promise<void> => {
    written.push(op);
    open.count++;
    try {
      await stack.receiver.waitForNotification(op.operationId, 3_600_000 * scale + 600_000);
    } finally {
      open.count--;
    }
  };
  for (let round = 0; !stopping(); round++) {
    const cluster = `c${i}r${round}`;
    const steps: Array<[string, () => Promise<WrittenOperation>]> = [
      ['createCluster', () => frontend.createCluster(sub, rg, cluster)],
      ['createNodePool', () => frontend.createNodePool(sub, rg, cluster, 'np1')],
      ['updateNodePool', () => frontend.updateNodePool(sub, rg, cluster, 'np1', { replicas: 3 })],
      ['updateCluster', () => frontend.updateCluster(sub, rg, cluster)],
      ['deleteNodePool', () => frontend.deleteNodePool(sub, rg, cluster, 'np1')],
      ['deleteCluster', () => frontend.deleteCluster(sub, rg, cluster)],
    ];
    for (const [what, send] of steps) {
      if (stopping()) return;
      await think(`${round}|${what}`);
      await waitFor(await send());
    }
  }
}

async function measureLevel(key: SystemKey, level: number, o: Options): Promise<LevelFigures> {
  const bus = key === 'opstream-events' ? await startServiceBus({ port: 0, config: SB_CONFIG }) : undefined;
  const stack = await startStack(`${key}-${level}`, bus ? { csServiceBus: bus.connectionString } : {});
  const writtenOps: WrittenOperation[] = [];
  const open = { count: 0 };
  let stop = false;
  try {
    stack.cs.admin.reset();
    stack.setDurationsFor(seededDurationsFor(PRODUCTION_PROFILE, SEED, o.scale));
    await stack.useDatabase(`prod-${key}-${level}-${Date.now().toString(36)}`);
    const system = systemFor(key, o.scale, bus);
    const instance = await system.start(stack.target, { instanceName: `${key}-${level}` });
    await system.settled([instance], 60_000);
    // Idle rate first (nothing written yet): what the system costs per real second whatever the load.
    const idleStart = await stack.emulator.counters();
    const harnessIdleStart = stack.cosmos.requestsByContainer();
    await sleep(o.idle * 1000);
    const idleEnd = await stack.emulator.counters();
    const harnessIdleEnd = stack.cosmos.requestsByContainer();
    const idleSeconds = o.idle;
    const frontend = new FrontendSimulator({ database: stack.database, notificationBaseUrl: stack.receiver.url, owner: `frontend-${key}` });
    for (let s = 0; s * SLOTS_PER_SUBSCRIPTION < level; s++)
      await frontend.registerSubscription(subscriptionOf(s * SLOTS_PER_SUBSCRIPTION), '11111111-1111-4111-8111-111111111111');
    const slots: Array<Promise<void>> = [];
    // Slots start spread over one median cluster install.
    const rampMs = PRODUCTION_PROFILE.phases.installingMs.median * o.scale;
    for (let i = 0; i < level; i++) {
      const delay = (rampMs * i) / level;
      slots.push(
        sleep(delay)
          .then(() => slot(stack, frontend, i, o.scale, () => stop, writtenOps, open))
          .catch((err: unknown) => {
            if (!stop) log(`slot ${i}: ${(err as Error).message}`);
          }),
      );
    }
    log(`${key} @ ${level}: ramp ${Math.round(rampMs / 1000)} s, warm-up ${o.warmup} s, window ${o.window} s`);
    await sleep(Math.max(rampMs, o.warmup * 1000));
    const t0 = Date.now();
    const before = await stack.emulator.counters();
    const harnessBefore = stack.cosmos.requests();
    const harnessByContainerBefore = stack.cosmos.requestsByContainer();
    const unitsBefore = stack.cosmos.requestUnits();
    const cpuBefore = instance.sample()?.cpuMs;
    const machineBefore = machineCpu();
    const load0 = loadavg()[0];
    const inFlightSamples: number[] = [];
    const sampler = setInterval(() => {
      inFlightSamples.push(open.count);
    }, 1_000);
    await sleep(o.window * 1000);
    clearInterval(sampler);
    const t1 = Date.now();
    const after = await stack.emulator.counters();
    const harnessAfter = stack.cosmos.requests();
    const harnessByContainerAfter = stack.cosmos.requestsByContainer();
    const unitsAfter = stack.cosmos.requestUnits();
    const cpuAfter = instance.sample()?.cpuMs;
    const machineAfter = machineCpu();
    stop = true;
    const outcomes = await readOutcomes(stack.database.container('Operations'), writtenOps);
    await instance.stop();
    const ended = outcomes.filter((x) => x.terminalAt !== undefined && x.terminalAt >= t0 && x.terminalAt <= t1);
    const timings = ended.map((x) => timingOf(x, stack.callLog, PRODUCTION_PROFILE, SEED, o.scale));
    const defined = (xs: Array<number | undefined>): number[] => xs.filter((x): x is number => x !== undefined);
    const windowSeconds = (t1 - t0) / 1000;
    const productionSeconds = windowSeconds / o.scale;
    const byEndpoint: Record<string, number> = {};
    let csCalls = 0;
    for (const c of stack.callLog.calls) {
      if (c.at < t0 || c.at > t1) continue;
      csCalls++;
      byEndpoint[c.endpoint] = (byEndpoint[c.endpoint] ?? 0) + 1 / productionSeconds;
    }
    const idleRate = (idleEnd.total - idleStart.total) / idleSeconds;
    const idleUnitsRate = (idleEnd.requestUnits.total - idleStart.requestUnits.total) / idleSeconds;
    const sysRequests = after.total - before.total - (harnessAfter - harnessBefore);
    const sysUnits = systemUnits(before, after, unitsBefore, unitsAfter).total ?? 0;
    const terminal: Record<string, number> = {};
    for (const x of ended) terminal[x.status ?? '?'] = (terminal[x.status ?? '?'] ?? 0) + 1;
    return {
      system: key,
      level,
      scale: o.scale,
      windowSeconds,
      inFlight: inFlightSamples.length ? inFlightSamples.reduce((a, b) => a + b, 0) / inFlightSamples.length : NaN,
      completedPerSecond: ended.length / productionSeconds,
      csCallsPerSecond: csCalls / productionSeconds,
      csCallsPerSecondByEndpoint: byEndpoint,
      cosmosRequestsPerSecond: (sysRequests - idleRate * windowSeconds) / productionSeconds,
      requestUnitsPerSecond: (sysUnits - idleUnitsRate * windowSeconds) / productionSeconds,
      idleCosmosRequestsPerSecond: idleRate,
      idleRequestUnitsPerSecond: idleUnitsRate,
      idleRequestsPerSecondByContainer: perContainer(
        systemRequestsByContainer(idleStart, idleEnd, harnessIdleStart, harnessIdleEnd),
        idleSeconds,
      ),
      requestsPerSecondByContainer: perContainer(
        systemRequestsByContainer(before, after, harnessByContainerBefore, harnessByContainerAfter),
        windowSeconds,
      ),
      completionLag: summarize(defined(timings.map((t) => t.completionLagMs))),
      completionLagByKind: lagByKind(ended, timings),
      reaction: summarize(
        defined(
          ended.map((x, i) =>
            x.op.request === 'Create' || x.op.request === 'Update' || x.op.request === 'Delete' ? timings[i].reactionMs : undefined,
          ),
        ),
      ),
      cpuCores: cpuBefore !== undefined && cpuAfter !== undefined ? (cpuAfter - cpuBefore) / (t1 - t0) : undefined,
      terminal,
      loadAverage: [load0, loadavg()[0]],
      machineBusyCores: machineBefore && machineAfter ? (machineAfter.busyMs - machineBefore.busyMs) / (t1 - t0) : undefined,
    };
  } finally {
    stop = true;
    await stack.close();
    await bus?.close();
  }
}

/** Completion lag summarised per kind of operation (`cluster Create`, `nodePool Update` …). */
function lagByKind(
  ended: ReadonlyArray<{ op: WrittenOperation }>,
  timings: ReadonlyArray<{ completionLagMs?: number }>,
): Record<string, Summary> {
  const lags = new Map<string, number[]>();
  ended.forEach((x, i) => {
    const lag = timings[i]?.completionLagMs;
    if (lag === undefined) return;
    const kind = `${/\/nodePools\//i.test(x.op.externalId) ? 'nodePool' : 'cluster'} ${x.op.request}`;
    lags.set(kind, [...(lags.get(kind) ?? []), lag]);
  });
  return Object.fromEntries([...lags].map(([kind, xs]) => [kind, summarize(xs)]));
}

const fmt = (n: number | undefined, digits = 2): string => (n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(digits));
const ms = (n: number | undefined): string =>
  n === undefined || !Number.isFinite(n) ? 'n/a' : n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`;

function table(figures: readonly LevelFigures[]): string[] {
  const lines = [
    '| system | in flight (target / measured) | completed ops/s | CS calls/s | Cosmos req/s above idle | RU/s above idle | idle Cosmos req/s (real) | completion lag p50 / p99 (real) | reaction p99 (real) | instance CPU (cores, real) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const f of figures) {
    lines.push(
      `| ${f.system} | ${f.level} / ${fmt(f.inFlight, 0)} | ${fmt(f.completedPerSecond, 3)} | ${fmt(f.csCallsPerSecond)} | ${fmt(f.cosmosRequestsPerSecond)} | ${fmt(f.requestUnitsPerSecond, 1)} | ${fmt(f.idleCosmosRequestsPerSecond, 1)} | ${ms(f.completionLag.p50)} / ${ms(f.completionLag.p99)} | ${ms(f.reaction.p99)} | ${fmt(f.cpuCores)} |`,
    );
  }
  return lines;
}

function endpointLines(figures: readonly LevelFigures[]): string[] {
  return figures.map(
    (f) =>
      `- ${f.system} @ ${f.level}: ${Object.entries(f.csCallsPerSecondByEndpoint)
        .sort((a, b) => b[1] - a[1])
        .map(([e, v]) => `${e} ${v.toFixed(3)}`)
        .join(', ')}`,
  );
}

/** Cosmos requests per production second above the idle rate, by container and kind (runs that recorded them). */
function containerLines(figures: readonly LevelFigures[]): string[] {
  return figures.flatMap((f) => {
    if (!f.requestsPerSecondByContainer) return [];
    const cells = Object.entries(f.requestsPerSecondByContainer).flatMap(([container, kinds]) =>
      Object.entries(kinds).map(([kind, rate]): [string, number] => {
        const idle = (f.idleRequestsPerSecondByContainer?.[container] as Record<string, number | undefined> | undefined)?.[kind] ?? 0;
        return [`${container} ${kind}`, ((rate ?? 0) - idle) * f.scale];
      }),
    );
    return [
      `- ${f.system} @ ${f.level}: ${cells
        .filter(([, v]) => Math.abs(v) >= 0.05)
        .sort((a, b) => b[1] - a[1])
        .map(([what, v]) => `${what} ${v.toFixed(2)}`)
        .join(', ')}`,
    ];
  });
}

const BEGIN = '<!-- production-shape:begin (written by `node dist/bench/production-shape.js`; do not edit by hand) -->';
const END = '<!-- production-shape:end -->';

function record(figures: readonly LevelFigures[], o: Options, started: number): void {
  const file = resultsPath('production-shape');
  const text = readFileSync(file, 'utf8');
  const section = [
    BEGIN,
    `Command: \`node dist/bench/production-shape.js --levels ${o.levels.join(',')} --scale ${o.scale} --window ${o.window} --systems ${o.systems.join(',')}\` (${new Date().toISOString().slice(0, 16)} UTC, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round((Date.now() - started) / 1000)} s).`,
    `Time scale ${o.scale}: CS phases, think times, the baseline's intervals and opstream's follow all run ${fmt(1 / o.scale, 0)}× faster than in production; rates are per production second (× ${o.scale}), latencies are as measured (real ms).`,
    '',
    ...table(figures),
    '',
    'CS calls per production second by endpoint:',
    ...endpointLines(figures),
    '',
    'Cosmos requests per production second above the idle rate, by container and kind:',
    ...containerLines(figures),
    END,
  ].join('\n');
  const at = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  const next =
    at >= 0 && end > at
      ? text.slice(0, at) + section + text.slice(end + END.length)
      : `${text.trimEnd()}\n\n## Production shape\n\n${section}\n`;
  writeFileSync(file, next);
}

/**
 * The page's marked block from the JSON of recorded runs (`--json` of each), side by side: every cell
 * "run 1 / run 2 …", and opstream's CS calls per second as a share of the baseline's at the same level.
 */
function render(files: readonly string[]): void {
  const runs = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as LevelFigures[]);
  const first = runs[0] ?? [];
  const each = (system: SystemKey, level: number, cell: (f: LevelFigures) => string): string =>
    runs
      .map((run) => {
        const f = run.find((x) => x.system === system && x.level === level);
        return f ? cell(f) : 'n/a';
      })
      .join(' / ');
  const baselineCs = (run: readonly LevelFigures[], level: number): number | undefined =>
    run.find((x) => x.system === 'baseline' && x.level === level)?.csCallsPerSecond;
  const lines = [
    '| system | in flight (target / measured) | CS calls/s | ÷ baseline | Cosmos req/s above idle | RU/s above idle | completion lag p50 · p99 (real) | reaction p99 (real) | instance CPU (cores) | load average |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { system, level } of first) {
    const ratio = runs
      .map((run) => {
        const f = run.find((x) => x.system === system && x.level === level);
        const b = baselineCs(run, level);
        return f && b ? fmt(f.csCallsPerSecond / b) : 'n/a';
      })
      .join(' / ');
    lines.push(
      `| ${system} | ${level} / ${each(system, level, (f) => fmt(f.inFlight, 0))} | ${each(system, level, (f) => fmt(f.csCallsPerSecond))} | ${system === 'baseline' ? '—' : ratio} | ${each(system, level, (f) => fmt(f.cosmosRequestsPerSecond, 1))} | ${each(system, level, (f) => fmt(f.requestUnitsPerSecond, 0))} | ${each(system, level, (f) => `${ms(f.completionLag.p50)} · ${ms(f.completionLag.p99)}`)} | ${each(system, level, (f) => ms(f.reaction.p99))} | ${each(system, level, (f) => fmt(f.cpuCores))} | ${each(system, level, (f) => fmt(f.loadAverage[0], 1))} |`,
    );
  }
  const lagByKind = runs.flatMap((run, i) =>
    run
      .filter((f) => f.completionLagByKind)
      .map(
        (f) =>
          `- run ${i + 1}, ${f.system} @ ${f.level}: ${Object.entries(f.completionLagByKind)
            .map(([k, v]) => `${k} ${ms(v.p99)}`)
            .join(', ')}`,
      ),
  );
  const section = [
    BEGIN,
    `Rendered by \`node dist/bench/production-shape.js --render ${files.join(' ')}\` from ${runs.length} run(s) (cells: run 1 / run 2 …); time scale ${first[0]?.scale ?? 'n/a'}, window ${fmt(first[0]?.windowSeconds, 0)} s per level and system. Rates per production second; latencies real.`,
    '',
    ...lines,
    '',
    'CS calls per production second by endpoint (last run):',
    ...endpointLines(runs[runs.length - 1] ?? []),
    ...(containerLines(runs[runs.length - 1] ?? []).length
      ? [
          '',
          'Cosmos requests per production second above the idle rate, by container and kind (last run):',
          ...containerLines(runs[runs.length - 1] ?? []),
        ]
      : []),
    ...(lagByKind.length ? ['', 'Completion lag p99 by kind of operation (runs that recorded it):', ...lagByKind] : []),
    END,
  ].join('\n');
  const file = resultsPath('production-shape');
  const text = readFileSync(file, 'utf8');
  const at = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (at < 0 || end < at) throw new Error(`bench/results/production-shape.md has no ${BEGIN} … ${END} markers to render into`);
  writeFileSync(file, text.slice(0, at) + section + text.slice(end + END.length));
}

function list(value: string): number[] {
  const xs = value.split(',').map(Number);
  if (xs.some((x) => !Number.isInteger(x) || x < 1)) throw new InvalidArgumentError('a comma-separated list of whole numbers');
  return xs;
}

function systems(value: string): SystemKey[] {
  const xs = value.split(',');
  for (const x of xs)
    if (!['baseline', 'opstream', 'opstream-events'].includes(x)) throw new InvalidArgumentError('baseline, opstream, opstream-events');
  return xs as SystemKey[];
}

async function main(): Promise<void> {
  const program = benchCommand(
    'production-shape',
    'opstream and the polling baseline with hundreds of clusters and node pools in flight, CS phases minutes long, time scaled down uniformly',
  )
    .option('--levels <list>', 'operations in flight (lifecycle slots)', list, [100, 300, 1000])
    .option('--scale <factor>', 'every CS duration, think time and interval of both systems is multiplied by this', positive, 0.1)
    .option('--window <seconds>', 'measured window per level (real seconds)', positive, 240)
    .option('--warmup <seconds>', 'before the window, at least (the slots ramp up over one scaled cluster install anyway)', positive, 60)
    .option('--idle <seconds>', "idle period before the load that measures each system's idle rate", positive, 15)
    .option('--systems <list>', 'baseline, opstream, opstream-events (CS events over Service Bus)', systems, [
      'baseline',
      'opstream',
      'opstream-events',
    ] as SystemKey[])
    .option('--json <file>', 'write every figure as JSON (runs the page renders: bench/results/production-shape/run-N.json)')
    .option('--no-record', 'leave bench/results/production-shape.md alone')
    .option(
      '--render <files...>',
      'write the marked block of bench/results/production-shape.md from these --json files of recorded runs, measuring nothing',
    )
    .parse();
  const o = program.opts<Options & { render?: string[] }>();
  if (o.render) return render(o.render);
  const started = Date.now();
  const figures: LevelFigures[] = [];
  for (const level of o.levels) {
    for (const key of o.systems) {
      const f = await measureLevel(key, level, o);
      figures.push(f);
      log(
        `${key} @ ${level}: ${JSON.stringify({ inFlight: Math.round(f.inFlight), csPerS: f.csCallsPerSecond.toFixed(3), lagP99: f.completionLag.p99, reactionP99: f.reaction.p99, cpu: f.cpuCores?.toFixed(2), ended: f.terminal, lagP99ByKind: Object.fromEntries(Object.entries(f.completionLagByKind).map(([k, v]) => [k, v.p99])) })}`,
      );
    }
  }
  process.stdout.write(`${[...table(figures), '', ...endpointLines(figures)].join('\n')}\n`);
  if (o.json) writeRunData(o.json, figures);
  if (o.record) record(figures, o, started);
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
    process.stderr.write(`production-shape: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

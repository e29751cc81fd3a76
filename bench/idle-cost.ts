/**
 * What an idle feed range costs against how fast a new operation is seen (issue 40, section 1): the
 * change feed processor under each candidate poll policy, side by side in one run, on the same
 * bursty ARM-like arrivals (bench/harness/arm-arrivals.ts), each policy on a Cosmos emulator process
 * of its own (4 ranges) so that request counts come from that emulator's counters, not from the
 * processor's memory. Beside them, `opstream run` with its defaults on 4 idle ranges (leases included).
 *
 *   npm run build && node dist/bench/idle-cost.js [--quick] [--record] [--json file]
 *   node dist/bench/idle-cost.js --render bench/results/idle-cost/run.json [--record]   (the recorded run again)
 *
 * Reaction: from the acknowledged write of a new operation to its delivery to the processor's handler.
 * Idle: requests per second per range over a quiet spell after the bursts (the active window over).
 * `--record` writes the run to bench/results/idle-cost/run.json, its page bench/results/idle-cost.md, the idle
 * row of the headline table in bench/RESULTS.md, the README's copy of that table and the tables of docs/cost.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Container } from '@azure/cosmos';
import { createChangeFeedProcessor, DEFAULTS, type ChangeFeedProcessor, type ChangeFeedProcessorOptions } from '@opstream/changefeed';
import { emulatorClient, hashV2Key } from '@opstream/cosmos-emulator/client-options';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { OperationHintSender, OPERATION_HINTS_ENTITY } from '@opstream/hint-sender';
import { loadConfig } from '../src/config/load-config';
import { createLogger } from '../src/logging/logger';
import { OperationHintsReceiver } from '../src/service-bus/operation-hints-receiver';
import { armArrivals, type ArrivalWrite } from './harness/arm-arrivals';
import { benchCommand, progressLog } from './harness/cli';
import { startEmulatorProcess, type EmulatorProcess } from './harness/emulator-process';
import { requestsOf, type IdleCostResult, type PolicyResult, type RunIdle, type RunIdleWindow } from './harness/idle-cost-result';
import { recordIdleCost } from './harness/idle-cost-record';
import { writeRunData } from './harness/results-section';
import { startStack } from './harness/stack';
import { summarize } from './harness/stats';
import { opstreamSystem } from './harness/system-under-test';

const opts = benchCommand('idle-cost', 'Reaction against idle requests per range for the candidate poll policies, side by side')
  .option('--quick', 'a short run for development (60 s of bursts, 20 s idle): never recorded')
  .option(
    '--record',
    'write bench/results/idle-cost/run.json and bench/results/idle-cost.md, the headline idle row (bench/RESULTS.md, README) and docs/cost.md tables',
  )
  .option('--json <file>', 'also write the result as JSON (what --render reads)')
  .option('--render <file>', 'run nothing: record a saved --json run (e.g. bench/results/idle-cost/run.json)')
  .parse()
  .opts<{ quick?: true; record?: true; json?: string; render?: string }>();
const QUICK = opts.quick === true;
if (QUICK && opts.record) throw new Error('--quick runs are too small to record; drop --quick or --record');
const SHAPE = QUICK ? { durationMs: 60_000, meanBurstGapMs: 8_000, seed: 40 } : { durationMs: 210_000, meanBurstGapMs: 9_000, seed: 40 };
/** After the bursts: the active window (10 s) and the climb to the ceiling pass before idle is measured. */
const SETTLE_MS = 15_000;
const IDLE_MS = QUICK ? 20_000 : 60_000;
/**
 * Each window of `opstream run` lasts one period of its safety-net relist (`pipeline.relistIntervalMs`,
 * a query per range every 5 min), so that each counts it once: a shorter window would count it whole
 * or not at all, by chance.
 */
const RUN_WINDOW_MS = QUICK ? 20_000 : loadConfig({ env: {} }).pipeline.relistIntervalMs;
const RANGES = 4;
const HINTS_CEILING_MS = 5_000;
const log = progressLog('idle-cost');

interface Policy {
  readonly key: string;
  readonly label: string;
  readonly options: Partial<ChangeFeedProcessorOptions>;
  readonly hints?: boolean;
  readonly chosen?: boolean;
}

const POLICIES: readonly Policy[] = [
  { key: 'fixed-100', label: 'fixed 100 ms (the former default)', options: { maxPollDelayMs: 100, activeWindowMs: 0 } },
  { key: 'fixed-1000', label: 'fixed 1 s', options: { maxPollDelayMs: 1_000, activeWindowMs: 0 } },
  { key: 'fixed-5000', label: 'fixed 5 s (.NET, Azure Functions)', options: { maxPollDelayMs: 5_000, activeWindowMs: 0 } },
  { key: 'window-1000', label: 'active window: 100 ms for 10 s after a change, then up to 1 s', options: {}, chosen: true },
  { key: 'window-1250', label: 'active window, ceiling 1.25 s', options: { maxPollDelayMs: 1_250 } },
  {
    key: 'hints-5000',
    label: 'wake-up hints, ceiling 5 s, no window',
    options: { maxPollDelayMs: HINTS_CEILING_MS, activeWindowMs: 0 },
    hints: true,
  },
];

/** `opstream run`'s change feed settings with nothing set: each policy changes only the poll settings. */
function runDefaults(): Partial<ChangeFeedProcessorOptions> {
  const { name: _name, startFrom: _startFrom, instanceName: _instance, ...rest } = loadConfig({ env: {} }).changefeed;
  return rest;
}

interface Doc {
  id: string;
  partitionKey: string;
  by: string;
}

interface Running {
  readonly policy: Policy;
  readonly emulator: EmulatorProcess;
  readonly feed: Container;
  readonly processor: ChangeFeedProcessor;
  readonly ackedAt: Map<string, number>;
  readonly deliveredAt: Map<string, number>;
  hints?: { sender: OperationHintSender; receiver: OperationHintsReceiver };
}

async function waitFor(what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function startPolicy(policy: Policy, bus: ServiceBusEmulator): Promise<Running> {
  const emulator = await startEmulatorProcess(`cosmos (${policy.key})`, RANGES);
  const client = emulatorClient(emulator);
  const { database } = await client.databases.createIfNotExists({ id: 'bench' });
  const { container: feed } = await database.containers.createIfNotExists({ id: 'Operations', partitionKey: hashV2Key('/partitionKey') });
  const { container: leases } = await database.containers.createIfNotExists({
    id: 'Leases',
    partitionKey: { paths: ['/id'] },
    defaultTtl: -1,
  });
  const deliveredAt = new Map<string, number>();
  const processor = createChangeFeedProcessor<Doc>(
    {
      feedContainer: feed,
      leaseContainer: leases,
      handler: (docs) => {
        const at = performance.now();
        for (const d of docs) if (!deliveredAt.has(d.id)) deliveredAt.set(d.id, at);
      },
    },
    { ...runDefaults(), ...policy.options, processorName: 'idle-cost', instanceName: policy.key, startFrom: 'now' },
  );
  await processor.start();
  await waitFor(`${policy.key}: ${RANGES} leases owned`, () => processor.ownedLeaseTokens().length === RANGES, 60_000);
  const running: Running = { policy, emulator, feed, processor, ackedAt: new Map(), deliveredAt };
  if (policy.hints) {
    const sender = new OperationHintSender({ connectionString: bus.connectionString }, { entity: OPERATION_HINTS_ENTITY });
    await sender.open();
    const receiver = new OperationHintsReceiver({
      access: { kind: 'connection-string', connectionString: bus.connectionString },
      entity: OPERATION_HINTS_ENTITY,
      onHint: (hint) => void processor.wakePartitionKey(hint.partitionKey),
      logger: createLogger({ level: 'warn', format: 'json' }),
    });
    receiver.start();
    running.hints = { sender, receiver };
  }
  return running;
}

/** Writes every policy's copy of one write at once; the frontend's hint follows its acknowledged write. */
async function write(r: Running, w: ArrivalWrite): Promise<void> {
  await r.feed.items.create<Doc>({ id: w.id, partitionKey: w.partitionKey, by: w.by });
  if (w.by !== 'frontend') return;
  r.ackedAt.set(w.id, performance.now());
  if (r.hints) await r.hints.sender.send({ partitionKey: w.partitionKey, operationId: w.id });
}

async function replay(schedule: readonly ArrivalWrite[], running: readonly Running[]): Promise<void> {
  const start = performance.now();
  const pending: Array<Promise<void>> = [];
  for (const w of schedule) {
    const wait = start + w.atMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(...running.map((r) => write(r, w)));
  }
  await Promise.all(pending);
}

function idleFigures(counters: Awaited<ReturnType<EmulatorProcess['counters']>>, seconds: number) {
  const feed = requestsOf(counters, 'Operations');
  const leases = requestsOf(counters, 'Leases');
  const perRange = (n: number): number => n / seconds / RANGES;
  return {
    changeFeedPerRange: perRange(feed.changeFeed),
    leasePerRange: perRange(leases.all),
    totalPerRange: perRange(counters.total),
    ruPerRange: perRange(counters.requestUnits.total),
  };
}

/** The deploy's probes (deploy/kubernetes/base): /readyz and /healthz every 10 s, a Prometheus scrape every 30 s. */
const PROBES = [
  { path: '/readyz', everyMs: 10_000 },
  { path: '/healthz', everyMs: 10_000 },
  { path: '/metrics', everyMs: 30_000 },
];

/** Calls each probe at its period until `signal` aborts (the first call of each at once, as a kubelet would soon after start). */
function probeLoop(baseUrl: string, signal: AbortSignal): Promise<void> {
  return Promise.all(
    PROBES.map(async ({ path, everyMs }) => {
      while (!signal.aborted) {
        await fetch(`${baseUrl}${path}`)
          .then((r) => r.arrayBuffer())
          .catch(() => undefined);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, everyMs);
          signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
      }
    }),
  ).then(() => undefined);
}

async function measureRunIdle(signal: { idleStarted: Promise<void> }): Promise<RunIdle> {
  const stack = await startStack('opstream run, defaults');
  try {
    await stack.useDatabase('idle');
    const system = opstreamSystem({});
    const instance = await system.start(stack.target, { instanceName: 'idle-0' });
    try {
      await system.settled([instance], 120_000);
      await signal.idleStarted;
      /** One quiet window's requests per range per second, from the emulator's counters. */
      const window = async (): Promise<RunIdleWindow> => {
        await stack.emulator.resetCounters();
        const t0 = performance.now();
        await new Promise((r) => setTimeout(r, RUN_WINDOW_MS));
        const counters = await stack.emulator.counters();
        const seconds = (performance.now() - t0) / 1000;
        const feed = requestsOf(counters, 'Operations');
        const leases = requestsOf(counters, 'Leases');
        const perRange = (n: number): number => n / seconds / RANGES;
        return {
          seconds,
          totalPerRange: perRange(counters.total),
          changeFeedPerRange: perRange(feed.changeFeed),
          leasePerRange: perRange(leases.all),
          otherPerRange: perRange(counters.total - feed.changeFeed - leases.all),
          ruPerRange: perRange(counters.requestUnits.total),
          byContainer: Object.fromEntries(Object.keys(counters.byContainer).map((c) => [c, requestsOf(counters, c).all])),
        };
      };
      const alone = await window();
      if (!instance.opsUrl) throw new Error('opstream run printed no ops server URL: the probes cannot be measured');
      const stopProbes = new AbortController();
      const probing = probeLoop(instance.opsUrl, stopProbes.signal);
      const probed = await window();
      stopProbes.abort();
      await probing;
      return { ranges: RANGES, ...alone, probed };
    } finally {
      await instance.stop();
    }
  } finally {
    await stack.close();
  }
}

async function run(): Promise<IdleCostResult> {
  const schedule = armArrivals(SHAPE);
  const frontend = schedule.filter((w) => w.by === 'frontend').length;
  log(
    `${schedule.length} writes (${frontend} new operations) over ${SHAPE.durationMs / 1000} s; policies: ${POLICIES.map((p) => p.key).join(', ')}`,
  );
  const bus = await startServiceBus({
    port: 0,
    config: {
      UserConfig: {
        Namespaces: [{ Name: 'sbemulatorns', Queues: [{ Name: OPERATION_HINTS_ENTITY, Properties: {} }], Topics: [] }],
        Logging: { Type: 'File' },
      },
    },
  });
  let releaseIdle: () => void = () => undefined;
  const idleStarted = new Promise<void>((r) => (releaseIdle = r));
  const runIdle = measureRunIdle({ idleStarted });
  const running: Running[] = [];
  try {
    for (const p of POLICIES) running.push(await startPolicy(p, bus));
    log('every policy owns its 4 leases; replaying the bursts');
    const loadBefore = loadavg()[0];
    await Promise.all(running.map((r) => r.emulator.resetCounters()));
    const busyStart = performance.now();
    await replay(schedule, running);
    for (const r of running) await waitFor(`${r.policy.key}: every write delivered`, () => r.deliveredAt.size >= schedule.length, 60_000);
    const busySeconds = (performance.now() - busyStart) / 1000;
    const busy = await Promise.all(running.map((r) => r.emulator.counters()));
    log(`bursts done in ${busySeconds.toFixed(0)} s; settling ${SETTLE_MS / 1000} s, then ${IDLE_MS / 1000} s idle`);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    releaseIdle();
    await Promise.all(running.map((r) => r.emulator.resetCounters()));
    const idleStart = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idle = await Promise.all(running.map((r) => r.emulator.counters()));
    const idleSeconds = (performance.now() - idleStart) / 1000;
    const policies: PolicyResult[] = running.map((r, i) => {
      const reactions = [...r.ackedAt].map(([id, acked]) => Math.max(0, (r.deliveredAt.get(id) ?? NaN) - acked));
      const s = summarize(reactions);
      return {
        key: r.policy.key,
        label: r.policy.label,
        ...(r.policy.chosen ? { chosen: true } : {}),
        reaction: { n: s.n, p50: s.p50, p90: s.p90, p99: s.p99, max: s.max },
        idle: idleFigures(idle[i], idleSeconds),
        busyPerRange: busy[i].total / busySeconds / RANGES,
      };
    });
    return {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} cores, load ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
      shape: {
        ...SHAPE,
        writes: schedule.length,
        operations: frontend,
        ranges: RANGES,
        idleSeconds: Math.round(idleSeconds),
        leaseRenewIntervalMs: DEFAULTS.leaseRenewIntervalMs,
        leaseExpirationMs: DEFAULTS.leaseExpirationMs,
      },
      policies,
      run: await runIdle,
    };
  } finally {
    for (const r of running) {
      await r.hints?.receiver.close();
      await r.hints?.sender.close();
      await r.processor.stop();
      await r.emulator.stop();
    }
    await bus.close();
  }
}

async function main(): Promise<void> {
  const result = opts.render ? (JSON.parse(readFileSync(opts.render, 'utf8')) as IdleCostResult) : await run();
  for (const p of result.policies)
    log(
      `${p.key.padEnd(12)} reaction p50 ${p.reaction.p50.toFixed(0)} p99 ${p.reaction.p99.toFixed(0)} ms; idle ${p.idle.totalPerRange.toFixed(2)} req/s/range (change feed ${p.idle.changeFeedPerRange.toFixed(2)}); busy ${p.busyPerRange.toFixed(2)}`,
    );
  log(
    `opstream run, defaults, 4 idle ranges: ${result.run.totalPerRange.toFixed(2)} req/s per range (${JSON.stringify(result.run.byContainer)})` +
      (result.run.probed
        ? `; with the deploy's probes ${result.run.probed.totalPerRange.toFixed(2)} (${JSON.stringify(result.run.probed.byContainer)})`
        : ''),
  );
  if (opts.json) writeRunData(opts.json, result);
  if (opts.record) {
    recordIdleCost(result, join(__dirname, '../..'));
    log('bench/results/idle-cost.md and its run.json, bench/RESULTS.md, README.md and docs/cost.md written');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

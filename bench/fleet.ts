/**
 * A fleet of change feed instances, measured: 64 and 256 feed ranges (the emulator's partitions)
 * owned by 1, 4, 8 and 16 instances, each a change feed processor in a process of its own with
 * opstream's defaults and a CPU quota (as bench/run.ts's scale-out phase caps its instances).
 *
 *   npm run build && node dist/bench/fleet.js [--ranges 64,256] [--instances 1,4,8,16] [--steady-s 600] [--record]
 *
 * Per configuration: time from start to every range owned and the fleet balanced (±1 lease); lease
 * moves in the steady state that follows (target 0); lease-container requests per second per
 * instance and per range, split into listings and writes; change-feed requests per range; resident
 * memory per instance. With the most instances: one is killed (SIGKILL) while documents are written,
 * and the benchmark records how long its leases take to be taken over and whether a document was
 * lost or delivered twice. Ownership is read from the instances' own events (no request of the
 * harness's); request counts from the emulator's counters. `--record` writes bench/results/fleet/run.json and
 * the "## Fleet" section of bench/results/fleet.md (with bench/results/fleet/before-run.json, when present, rendered
 * beside it) and the projection block of docs/cost.md; `--render` writes them again from the files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import type { Container } from '@azure/cosmos';
import { emulatorClient, hashV2Key } from '@opstream/cosmos-emulator/client-options';
import { DEFAULTS } from '@opstream/changefeed';
import { Worker } from './harness/changefeed-workers';
import { benchCommand, positive, progressLog } from './harness/cli';
import { createCpuQuota, probeCpuQuota, type CpuQuota } from './harness/cpu-quota';
import type { CounterSnapshot } from '@opstream/cosmos-emulator';
import { startEmulatorProcess, type EmulatorProcess } from './harness/emulator-process';
import { FleetOwnership } from './harness/fleet-ownership';
import {
  renderFleet,
  renderProjection,
  withProjection,
  type FleetConfigResult,
  type FleetRun,
  type TakeoverResult,
} from './harness/fleet-report';
import { sampleProcess } from './harness/proc-stats';
import { recordSection, resultsPath, writeRunData } from './harness/results-section';

const list = (value: string): number[] =>
  value.split(',').map((v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`not a whole number: ${v}`);
    return n;
  });

const opts = benchCommand(
  'fleet',
  'A fleet of change feed instances on 64 and 256 ranges: balancing, steady-state moves, takeover, lease cost',
)
  .option('--ranges <list>', 'feed ranges (emulator partitions), comma-separated', list, [64, 256])
  .option('--instances <list>', 'fleet sizes, comma-separated; the largest also runs the takeover', list, [1, 4, 8, 16])
  .option('--steady-s <seconds>', 'length of the steady state measured after the fleet balanced', positive, 600)
  .option('--cpu <cores>', 'CPU quota of each instance', positive, 0.25)
  .option(
    '--record',
    'write bench/results/fleet/run.json, the "## Fleet" section of bench/results/fleet.md and the projection in docs/cost.md',
  )
  .option('--render', 'measure nothing: write the section and the projection again from bench/results/fleet/run.json')
  .parse()
  .opts<{ ranges: number[]; instances: number[]; steadyS: number; cpu: number; record?: true; render?: true }>();

const log = progressLog('fleet');
const WORKER_SCRIPT = join(__dirname, 'harness/changefeed-worker.js');
const BALANCE_TIMEOUT_MS = 15 * 60_000;
const WRITE_RATE = 20;

/** Workers of the fleet being measured that failed (an instance that was not killed here must not exit). */
const failing: { workers: Worker[]; killed: Set<Worker> } = { workers: [], killed: new Set() };

function failure(): string | undefined {
  const dead = failing.workers.find((w) => !failing.killed.has(w) && (w.proc.exitCode !== null || w.messages.some((m) => m.t === 'fatal')));
  return dead ? `an instance failed: ${dead.fatal() ?? `exit ${dead.proc.exitCode}`}` : undefined;
}

async function waitUntil(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    const failed = failure();
    if (failed) throw new Error(`${failed} (waiting for ${what})`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Fleet {
  workers: Worker[];
  quotas: CpuQuota[];
  ownership: FleetOwnership;
  /** id → deliveries, across every worker (a killed one's included). */
  deliveries: Map<string, number>;
}

function startFleet(emu: EmulatorProcess, database: string, instances: number): Fleet {
  const ownership = new FleetOwnership();
  const deliveries = new Map<string, number>();
  const probe = probeCpuQuota();
  const workers: Worker[] = [];
  const quotas: CpuQuota[] = [];
  for (let i = 0; i < instances; i++) {
    const worker = new Worker(
      {
        endpoint: emu.endpoint,
        key: emu.key,
        database,
        feed: 'feed',
        leases: 'leases',
        options: { processorName: 'fleet', instanceName: `instance-${i}`, startFrom: 'beginning' },
      },
      WORKER_SCRIPT,
    );
    worker.onMessage = (m) => {
      if (m.t === 'event' && m.type) ownership.observe({ worker: i, type: m.type, lease: m.lease, at: Date.now() });
      for (const id of m.ids ?? []) deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
    };
    if ('mechanism' in probe && worker.proc.pid !== undefined) {
      const quota = createCpuQuota(`fleet-${process.pid}-${database}-${i}`, opts.cpu);
      quota.addPid(worker.proc.pid);
      quotas.push(quota);
    }
    workers.push(worker);
  }
  failing.workers = workers;
  failing.killed = new Set();
  return { workers, quotas, ownership, deliveries };
}

async function stopFleet(fleet: Fleet): Promise<void> {
  for (const w of fleet.workers) failing.killed.add(w);
  for (const w of fleet.workers) if (w.proc.exitCode === null) w.kill('SIGKILL');
  await Promise.all(fleet.workers.map((w) => w.exited));
  for (const q of fleet.quotas) q.dispose();
}

function leaseAndFeedRequests(counters: CounterSnapshot) {
  // The emulator counts per container id: every configuration has its own database and the same names.
  const leases = counters.byContainer['leases'] ?? { requests: {}, requestUnits: { total: 0 } };
  const feed = counters.byContainer['feed']?.requests ?? {};
  const sum = (r: Partial<Record<string, number>>, keys: string[]) => keys.reduce((s, k) => s + (r[k] ?? 0), 0);
  const all = Object.keys(leases.requests);
  return {
    leaseTotal: sum(leases.requests, all),
    leaseListing: sum(leases.requests, ['query', 'queryPlan']),
    leaseWrites: sum(leases.requests, ['write']),
    leaseRu: leases.requestUnits.total,
    listingRu: sum(leases.requestUnits, ['query', 'queryPlan']),
    changeFeed: sum(feed, ['changeFeed200', 'changeFeed304', 'changeFeedOther']),
  };
}

/** Writes documents with distinct partition keys at `WRITE_RATE` a second until stopped. */
function startWriter(feed: Container, tag: string): { written: string[]; stop(): Promise<void> } {
  const written: string[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const id = `${tag}-${i}`;
      try {
        await feed.items.create({ id, partitionKey: `pk-${id}` });
        written.push(id);
      } catch (err) {
        log(`write ${id} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      await new Promise((r) => setTimeout(r, 1000 / WRITE_RATE));
    }
  })();
  return {
    written,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

async function takeover(fleet: Fleet, feed: Container, ranges: number): Promise<TakeoverResult> {
  const all = fleet.workers.map((_, i) => i);
  const writer = startWriter(feed, `takeover-${ranges}`);
  await waitUntil('the first writes delivered', () => writer.written.length >= WRITE_RATE * 5, 60_000);
  const victim = 0;
  const killedAt = Date.now();
  failing.killed.add(fleet.workers[victim]);
  fleet.workers[victim].kill('SIGKILL');
  await fleet.workers[victim].exited;
  const orphaned = fleet.ownership.forget(victim);
  log(`killed instance-${victim} holding ${orphaned.length} leases`);
  const survivors = all.filter((w) => w !== victim);
  await waitUntil(
    'its leases taken over',
    () => orphaned.every((l) => fleet.ownership.ownerOf(l) !== undefined),
    Math.max(DEFAULTS.leaseExpirationMs * 4, 120_000),
  );
  const takenAt = orphaned.map((l) => [...fleet.ownership.acquisitions].reverse().find((a) => a.lease === l)?.at ?? NaN);
  const lastTaken = Math.max(...takenAt);
  const firstTaken = Math.min(...takenAt);
  await new Promise((r) => setTimeout(r, 5_000));
  await writer.stop();
  const written = writer.written;
  await waitUntil('every written document delivered', () => written.every((id) => fleet.deliveries.has(id)), 120_000).catch(
    (err: unknown) => log(err instanceof Error ? err.message : String(err)),
  );
  const lost = written.filter((id) => !fleet.deliveries.has(id)).length;
  const duplicated = written.filter((id) => (fleet.deliveries.get(id) ?? 0) > 1).length;
  return {
    instances: fleet.workers.length,
    leasesOfKilled: orphaned.length,
    firstTakenMs: firstTaken - killedAt,
    allTakenMs: lastTaken - killedAt,
    written: written.length,
    lost,
    duplicated,
    balancedAfter: fleet.ownership.balanced(ranges, survivors),
  };
}

async function runConfig(emu: EmulatorProcess, ranges: number, instances: number, withTakeover: boolean): Promise<FleetConfigResult> {
  const database = `fleet-${ranges}-${instances}`;
  const client = emulatorClient(emu);
  try {
    const { database: db } = await client.databases.createIfNotExists({ id: database });
    const { container: feed } = await db.containers.createIfNotExists({ id: 'feed', partitionKey: hashV2Key('/partitionKey') });
    await db.containers.createIfNotExists({ id: 'leases', partitionKey: { paths: ['/id'] }, defaultTtl: -1 });
    const pkRanges = (await feed.readPartitionKeyRanges().fetchAll()).resources.length;
    if (pkRanges !== ranges) throw new Error(`the feed has ${pkRanges} ranges, not ${ranges}`);
    const startedAt = Date.now();
    const fleet = startFleet(emu, database, instances);
    const all = fleet.workers.map((_, i) => i);
    try {
      let allOwnedMs: number | undefined;
      await waitUntil(
        `${instances} instances to own and balance ${ranges} ranges`,
        () => {
          if (allOwnedMs === undefined && fleet.ownership.owned(all) === ranges) allOwnedMs = Date.now() - startedAt;
          return fleet.ownership.balanced(ranges, all);
        },
        BALANCE_TIMEOUT_MS,
      );
      const balancedMs = Date.now() - startedAt;
      log(`${ranges} ranges × ${instances}: balanced after ${(balancedMs / 1000).toFixed(1)} s; steady state for ${opts.steadyS} s`);
      await emu.resetCounters();
      const steadyFrom = Date.now();
      await new Promise((r) => setTimeout(r, opts.steadyS * 1000));
      const steadyS = (Date.now() - steadyFrom) / 1000;
      const moves = fleet.ownership.acquisitionsSince(steadyFrom);
      const requests = leaseAndFeedRequests(await emu.counters());
      const rss = fleet.workers.map((w) => (w.proc.pid === undefined ? NaN : (sampleProcess(w.proc.pid)?.rssBytes ?? NaN)));
      const result: FleetConfigResult = {
        ranges,
        instances,
        allOwnedMs: allOwnedMs ?? balancedMs,
        balancedMs,
        steadyS,
        movesPerMinute: (moves / steadyS) * 60,
        leaseRequestsPerSecondPerInstance: requests.leaseTotal / steadyS / instances,
        leaseRequestsPerSecondPerRange: requests.leaseTotal / steadyS / ranges,
        listingRequestsPerSecond: requests.leaseListing / steadyS,
        leaseRuPerSecond: requests.leaseRu / steadyS,
        listingRuPerSecond: requests.listingRu / steadyS,
        leaseWritesPerSecondPerRange: requests.leaseWrites / steadyS / ranges,
        changeFeedRequestsPerSecondPerRange: requests.changeFeed / steadyS / ranges,
        rssMiBPerInstance: rss.reduce((s, v) => s + v, 0) / rss.length / 2 ** 20,
        leasesPerInstance: ranges / instances,
      };
      log(JSON.stringify(result));
      if (withTakeover) result.takeover = await takeover(fleet, feed, ranges);
      if (result.takeover) log(JSON.stringify(result.takeover));
      return result;
    } finally {
      await stopFleet(fleet);
    }
  } finally {
    client.dispose();
  }
}

function commitOf(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

const ROOT = join(__dirname, '../..');
const RUN_FILE = resultsPath('fleet', 'run.json');
const BEFORE_FILE = resultsPath('fleet', 'before-run.json');

async function measure(): Promise<FleetRun> {
  const probe = probeCpuQuota();
  log(
    'mechanism' in probe ? `each instance capped at ${opts.cpu} core (${probe.mechanism})` : `instances not capped: ${probe.unavailable}`,
  );
  const configs: FleetConfigResult[] = [];
  const largest = Math.max(...opts.instances);
  for (const ranges of opts.ranges) {
    const emu = await startEmulatorProcess(`cosmos-${ranges}`, ranges);
    try {
      for (const instances of opts.instances) configs.push(await runConfig(emu, ranges, instances, instances === largest && largest > 1));
    } finally {
      await emu.stop();
    }
  }
  return {
    at: new Date().toISOString(),
    commit: commitOf(),
    cores: cpus().length,
    cpuPerInstance: 'mechanism' in probe ? opts.cpu : undefined,
    steadyS: opts.steadyS,
    options: {
      leaseAcquireIntervalMs: DEFAULTS.leaseAcquireIntervalMs,
      leaseRenewIntervalMs: DEFAULTS.leaseRenewIntervalMs,
      leaseExpirationMs: DEFAULTS.leaseExpirationMs,
      leasesAcquiredPerCycle: DEFAULTS.leasesAcquiredPerCycle,
      maxPollDelayMs: DEFAULTS.maxPollDelayMs,
      checkpointIntervalMs: DEFAULTS.checkpointIntervalMs,
    },
    configs,
  };
}

const readRun = (file: string): FleetRun | undefined =>
  existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as FleetRun) : undefined;

async function main(): Promise<void> {
  const run = opts.render ? readRun(RUN_FILE) : await measure();
  if (!run) throw new Error(`--render needs ${RUN_FILE}: record a run first (--record)`);
  const section = renderFleet(run, readRun(BEFORE_FILE));
  process.stdout.write(`${section}\n`);
  if (opts.record || opts.render) {
    if (!opts.render) writeRunData(RUN_FILE, run);
    recordSection(resultsPath('fleet'), '## Fleet', `${section}\n`, '## Idle cost against reaction');
    const costFile = join(ROOT, 'docs/cost.md');
    writeFileSync(costFile, withProjection(readFileSync(costFile, 'utf8'), renderProjection(run)));
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`fleet: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

/**
 * Change feed processor benchmark: the same processor with .NET's defaults and with opstream's,
 * side by side in one run (concurrently, each profile with its own emulators so request counters
 * stay apart, two instances per profile in child processes, 4 ranges).
 *
 *   npm run build && node dist/bench/changefeed.js [--quick] [--runs N] [--record]
 *
 * Figures: write → handler latency p50/p99 at 200 writes/s, and for a burst after an idle period;
 * change-feed requests per second per range while idle; lease-container requests per second per
 * instance (idle and under load). `--quick` shortens load and idle (15 s idle instead of 60 s);
 * `--runs` (default 2) repeats the whole measurement, each figure then given as mean (min–max);
 * `--record` replaces the "## Change feed processor" section of bench/results/changefeed.md.
 */
import { join } from 'node:path';
import { hostname, cpus } from 'node:os';
import type { Container } from '@azure/cosmos';
import { startCosmosEmulator, type CosmosEmulator } from '@opstream/cosmos-emulator';
import { emulatorClient, hashV2Key } from '@opstream/cosmos-emulator/client-options';
import { DEFAULTS, DOTNET_DEFAULTS, type ChangeFeedProcessorOptions } from '@opstream/changefeed';
import { Worker } from './harness/changefeed-workers';
import { benchCommand, wholeNumber } from './harness/cli';
import { recordSection, resultsPath } from './harness/results-section';
import { spread } from './harness/spread';

const opts = benchCommand(
  'changefeed',
  "The change feed processor with .NET's defaults and with opstream's, side by side: latency, idle requests, lease requests",
)
  .option('--quick', 'shorter periods (warm-up 3 s, load 10 s, idle 15 s instead of 5, 30 and 60 s)')
  .option('--runs <n>', 'the whole measurement this many times, each figure then the mean (min–max)', wholeNumber, 2)
  .option('--record', 'replace the "## Change feed processor" section of bench/results/changefeed.md')
  .parse()
  .opts<{ quick?: true; runs: number; record?: true }>();
const QUICK = opts.quick === true;
const RECORD = opts.record === true;
/** Every recorded figure states its run-to-run spread: the whole measurement runs this many times. */
const RUNS = opts.runs;
const RATE = 200;
const WARMUP_MS = QUICK ? 3_000 : 5_000;
const LOAD_MS = QUICK ? 10_000 : 30_000;
const IDLE_MS = QUICK ? 15_000 : 60_000;
const BURST = 100;
const INSTANCES = 2;
const PARTITIONS = 4;
const WORKER_SCRIPT = join(__dirname, 'harness/changefeed-worker.js');

interface Profile {
  name: string;
  options: Omit<ChangeFeedProcessorOptions, 'processorName'>;
  feedEmu: CosmosEmulator;
  leaseEmu: CosmosEmulator;
  feed: Container;
  workers: Worker[];
  /** id → time the write was issued. */
  writtenAt: Map<string, number>;
  /** id → time its write was acknowledged (burst only). */
  ackedAt: Map<string, number>;
  /** id → time of its first delivery to a handler. */
  deliveredAt: Map<string, number>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function setUp(name: string, options: Profile['options']): Promise<Profile> {
  const feedEmu = await startCosmosEmulator({ port: 0, partitions: PARTITIONS });
  const leaseEmu = await startCosmosEmulator({ port: 0, partitions: 1 });
  const feedClient = emulatorClient(feedEmu);
  const leaseClient = emulatorClient(leaseEmu);
  const { database } = await feedClient.databases.createIfNotExists({ id: 'bench' });
  // Hash v2, as opstream makes its Operations container and as the recorded results were measured.
  const { container: feed } = await database.containers.createIfNotExists({ id: 'operations', partitionKey: hashV2Key('/partitionKey') });
  const { database: leaseDb } = await leaseClient.databases.createIfNotExists({ id: 'bench' });
  await leaseDb.containers.createIfNotExists({ id: 'leases', partitionKey: { paths: ['/id'] }, defaultTtl: -1 });
  leaseClient.dispose();
  const profile: Profile = {
    name,
    options,
    feedEmu,
    leaseEmu,
    feed,
    workers: [],
    writtenAt: new Map(),
    ackedAt: new Map(),
    deliveredAt: new Map(),
  };
  for (let i = 0; i < INSTANCES; i++) {
    // The worker takes one endpoint; the lease container lives on the lease emulator, so start
    // it with both and let it build two clients.
    const worker = new Worker(
      {
        endpoint: feedEmu.endpoint,
        key: feedEmu.key,
        database: 'bench',
        feed: 'operations',
        leases: 'leases',
        leaseEndpoint: leaseEmu.endpoint,
        options: { ...options, processorName: `bench-${name}`, instanceName: `${name}-${i}`, startFrom: 'now' },
      },
      WORKER_SCRIPT,
    );
    worker.onMessage = (m) => {
      if (m.t !== 'batch' || m.at === undefined) return;
      for (const id of m.ids ?? []) if (!profile.deliveredAt.has(id)) profile.deliveredAt.set(id, m.at);
    };
    profile.workers.push(worker);
  }
  return profile;
}

/** Writes at `rate` per second to every profile (the same ids), for `durationMs`. */
async function writeAtRate(profiles: Profile[], tag: string, rate: number, durationMs: number): Promise<string[]> {
  const ids: string[] = [];
  const start = Date.now();
  const inFlight = new Set<Promise<unknown>>();
  let n = 0;
  while (Date.now() - start < durationMs) {
    const due = Math.floor(((Date.now() - start) / 1000) * rate);
    while (n < due) {
      const id = `${tag}-${n}`;
      const pk = `sub-${Math.floor(Math.random() * 1e9)}`;
      ids.push(id);
      for (const p of profiles) {
        p.writtenAt.set(id, Date.now());
        const w = p.feed.items.create({ id, partitionKey: pk, n }).finally(() => inFlight.delete(w));
        inFlight.add(w);
      }
      n++;
    }
    await sleep(2);
  }
  await Promise.all(inFlight);
  return ids;
}

async function burst(profiles: Profile[], tag: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
  await Promise.all(
    ids.flatMap((id, i) =>
      profiles.map((p) => {
        p.writtenAt.set(id, Date.now());
        return p.feed.items.create({ id, partitionKey: `burst-${i}`, n: i }).then(() => p.ackedAt.set(id, Date.now()));
      }),
    ),
  );
  return ids;
}

/** Delivery − write issued, or (`fromAck`) delivery − write acknowledged, floored at 0. */
function latencies(p: Profile, ids: string[], fromAck = false): { p50: number; p99: number; max: number; missing: number } {
  const values = ids
    .map((id) => {
      const delivered = p.deliveredAt.get(id);
      const from = (fromAck ? p.ackedAt : p.writtenAt).get(id);
      return delivered === undefined || from === undefined ? undefined : Math.max(0, delivered - from);
    })
    .filter((v): v is number => v !== undefined);
  return { p50: percentile(values, 50), p99: percentile(values, 99), max: Math.max(...values), missing: ids.length - values.length };
}

function changeFeedRequests(emu: CosmosEmulator): number {
  const c = emu.counters();
  return c.changeFeed200 + c.changeFeed304 + c.changeFeedOther;
}

async function main(): Promise<void> {
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (RUNS > 1) console.error(`run ${i + 1} of ${RUNS}`);
    runs.push(await runOnce());
  }
  const table =
    `${render(runs)}\n\n` +
    `The burst's own writes (${BURST} per profile, issued at once) took ${spread(
      runs.map((r) => r.burstWriteMs),
      0,
    )} ms to be acknowledged; burst latency includes that.` +
    (RUNS > 1 ? ` Each figure: mean over ${RUNS} runs (min–max), each run with fresh emulators and instances.` : '');
  console.log(table);
  if (RECORD) record(table);
}

interface Run {
  rows: Row[];
  idleSeconds: number;
  burstWriteMs: number;
}

async function runOnce(): Promise<Run> {
  const profiles = await Promise.all([setUp('dotnet', { ...DOTNET_DEFAULTS }), setUp('opstream', {})]);
  const workers = profiles.flatMap((p) => p.workers);
  try {
    await waitUntil('workers started', () => workers.every((w) => w.started) || workers.some((w) => w.fatal() !== undefined));
    const fatal = workers.map((w) => w.fatal()).find((f) => f !== undefined);
    if (fatal) throw new Error(`worker failed: ${fatal}`);
    // .NET's 13 s acquire interval: wait until each profile's two instances hold 2 leases each.
    await waitUntil('leases balanced', () => profiles.every((p) => balanced(p)), 120_000);

    console.error(`warm-up ${WARMUP_MS} ms`);
    const warm = await writeAtRate(profiles, 'warm', RATE, WARMUP_MS);
    await waitUntil('warm-up delivered', () => profiles.every((p) => warm.every((id) => p.deliveredAt.has(id))), 60_000);

    console.error(`load ${LOAD_MS} ms at ${RATE}/s`);
    const leaseBeforeLoad = profiles.map((p) => p.leaseEmu.counters().total);
    const loadStart = Date.now();
    const load = await writeAtRate(profiles, 'load', RATE, LOAD_MS);
    const loadSeconds = (Date.now() - loadStart) / 1000;
    const leaseLoad = profiles.map((p, i) => (p.leaseEmu.counters().total - leaseBeforeLoad[i]) / loadSeconds / INSTANCES);
    await waitUntil('load delivered', () => profiles.every((p) => load.every((id) => p.deliveredAt.has(id))), 60_000);

    console.error(`idle ${IDLE_MS} ms`);
    const cfBefore = profiles.map((p) => changeFeedRequests(p.feedEmu));
    const leaseBefore = profiles.map((p) => p.leaseEmu.counters().total);
    const idleStart = Date.now();
    await sleep(IDLE_MS);
    const idleSeconds = (Date.now() - idleStart) / 1000;
    const cfIdle = profiles.map((p, i) => (changeFeedRequests(p.feedEmu) - cfBefore[i]) / idleSeconds / PARTITIONS);
    const leaseIdle = profiles.map((p, i) => (p.leaseEmu.counters().total - leaseBefore[i]) / idleSeconds / INSTANCES);

    console.error(`burst of ${BURST}`);
    const burstStart = Date.now();
    const burstIds = await burst(profiles, 'burst', BURST);
    const burstWriteMs = Date.now() - burstStart;
    await waitUntil('burst delivered', () => profiles.every((p) => burstIds.every((id) => p.deliveredAt.has(id))), 60_000);

    const rows = profiles.map((p, i) => {
      const l = latencies(p, load);
      const b = latencies(p, burstIds);
      const ba = latencies(p, burstIds, true);
      return { profile: p.name, load: l, burst: b, burstAck: ba, cfIdle: cfIdle[i], leaseIdle: leaseIdle[i], leaseLoad: leaseLoad[i] };
    });
    return { rows, idleSeconds, burstWriteMs };
  } finally {
    for (const w of workers) w.kill('SIGTERM');
    await Promise.race([Promise.all(workers.map((w) => w.exited)), sleep(10_000)]);
    for (const w of workers) w.kill('SIGKILL');
    await Promise.all(profiles.flatMap((p) => [p.feedEmu.close(), p.leaseEmu.close()]));
  }
}

function balanced(p: Profile): boolean {
  const held = new Map<string, Set<string>>();
  for (const w of p.workers) {
    for (const m of w.messages) {
      if (m.t !== 'event' || !m.lease) continue;
      const set = held.get(w.proc.pid!.toString()) ?? new Set<string>();
      held.set(w.proc.pid!.toString(), set);
      if (m.type === 'changefeed.lease.acquired') set.add(m.lease);
      if (m.type === 'changefeed.lease.lost' || m.type === 'changefeed.lease.released') set.delete(m.lease);
    }
  }
  return held.size === INSTANCES && [...held.values()].every((s) => s.size === PARTITIONS / INSTANCES);
}

interface Row {
  profile: string;
  load: ReturnType<typeof latencies>;
  burst: ReturnType<typeof latencies>;
  burstAck: ReturnType<typeof latencies>;
  cfIdle: number;
  leaseIdle: number;
  leaseLoad: number;
}

function render(runs: Run[]): string {
  const idleSeconds = Math.round(runs[0].idleSeconds);
  const lines = [
    `| profile | latency p50 / p99 / max at ${RATE} writes/s (ms) | burst of ${BURST} after ${idleSeconds} s idle: p50 / p99 from write issued (ms) | … from write acknowledged (ms) | change-feed requests/s per range, idle | lease-container requests/s per instance, idle | … under load |`,
    '|---|---|---|---|---|---|---|',
    ...runs[0].rows.map((first) => {
      const rows = runs.map((r) => r.rows.find((row) => row.profile === first.profile));
      const of = (pick: (r: Row) => number, digits = 0): string =>
        spread(
          rows.map((r) => (r ? pick(r) : undefined)),
          digits,
        );
      return `| ${first.profile} | ${of((r) => r.load.p50)} / ${of((r) => r.load.p99)} / ${of((r) => r.load.max)} | ${of((r) => r.burst.p50)} / ${of((r) => r.burst.p99)} | ${of((r) => r.burstAck.p50)} / ${of((r) => r.burstAck.p99)} | ${of((r) => r.cfIdle, 2)} | ${of((r) => r.leaseIdle, 3)} | ${of((r) => r.leaseLoad, 2)} |`;
    }),
  ];
  return lines.join('\n');
}

function record(table: string): void {
  const file = resultsPath('changefeed');
  const section = [
    '## Change feed processor',
    '',
    `Command: \`npm run build && node dist/bench/changefeed.js${QUICK ? ' --quick' : ''}${RUNS !== 2 ? ` --runs ${RUNS}` : ''} --record\` (${new Date().toISOString().slice(0, 10)}, ${hostname()}, ${cpus().length} cores${QUICK ? ', quick mode: 10 s load, 15 s idle' : ''}).`,
    `Both profiles run at once, each with its own in-process emulators (feed: ${PARTITIONS} ranges; leases: separate, so counters are apart), ${INSTANCES} instances per profile in child processes,`,
    `writes of new documents to random partition keys; latency = handler start − write issued (includes the write's own round trip).`,
    `"dotnet" = .NET defaults (${DOTNET_DEFAULTS.maxPollDelayMs} ms poll delay after an empty read, acquire ${DOTNET_DEFAULTS.leaseAcquireIntervalMs / 1000} s, renew ${DOTNET_DEFAULTS.leaseRenewIntervalMs / 1000} s, expiry ${DOTNET_DEFAULTS.leaseExpirationMs / 1000} s);`,
    `"opstream" = \`DEFAULTS\` (poll ${DEFAULTS.minPollDelayMs} ms after changes, ramp to ${DEFAULTS.maxPollDelayMs} ms when idle, acquire ${DEFAULTS.leaseAcquireIntervalMs / 1000} s, renew ${DEFAULTS.leaseRenewIntervalMs / 1000} s when not checkpointed, expiry ${DEFAULTS.leaseExpirationMs / 1000} s).`,
    '',
    table,
    '',
  ].join('\n');
  recordSection(file, '## Change feed processor', section, '# Benchmark results');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

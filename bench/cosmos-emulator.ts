/**
 * Cosmos emulator benchmark. The emulator runs in its own child process (the compiled CLI,
 * `opstream emulator cosmos`); this process drives it through `@azure/cosmos` like any client would.
 *
 *   npm run build && node dist/bench/cosmos-emulator.js [--quick] [--runs N] [--record]
 *
 * Figures (4 partitions, 1 KB documents, 32 concurrent requests):
 *   - upserts/s and upsert latency p50/p99, memory only and with --data-dir (journal, fsync per group);
 *   - change-feed read latency p50/p99 for a page of 100 items (one range, SDK iterator, `maxItemCount: 100`).
 * `--quick` shortens the runs; `--runs` (default 2) repeats both scenarios, each figure then given as mean
 * (min–max); `--record` replaces the "## Cosmos emulator" section of bench/results/cosmos-emulator.md.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChangeFeedStartFrom, Container, CosmosClient } from '@azure/cosmos';
import { emulatorClient, hashV2Key } from '@opstream/cosmos-emulator/client-options';
import { benchCommand, wholeNumber } from './harness/cli';
import { recordSection, resultsPath } from './harness/results-section';
import { spread } from './harness/spread';

const opts = benchCommand(
  'cosmos-emulator',
  'The Cosmos emulator in a child process, driven through @azure/cosmos: upserts/s and latency, change-feed read latency',
)
  .option('--quick', 'shorter runs (2 s warm-up and 5 s measured instead of 3 and 15; 8,000 feed documents instead of 20,000)')
  .option('--runs <n>', 'both scenarios this many times, alternating, each figure then the mean (min–max)', wholeNumber, 2)
  .option('--record', 'replace the "## Cosmos emulator" section of bench/results/cosmos-emulator.md')
  .parse()
  .opts<{ quick?: true; runs: number; record?: true }>();
const QUICK = opts.quick === true;
const RECORD = opts.record === true;
/** Every recorded figure states its run-to-run spread: both scenarios run this many times, alternating. */
const RUNS = opts.runs;
const CONCURRENCY = 32;
const PARTITIONS = 4;
const WARMUP_MS = QUICK ? 2_000 : 3_000;
const RUN_MS = QUICK ? 5_000 : 15_000;
const FEED_DOCS = QUICK ? 8_000 : 20_000;
const FEED_PAGE = 100;
const CLI = join(__dirname, '../src/cli/main.js');
const PAYLOAD = 'x'.repeat(738); // the stored document, system properties included, is ~1 KB

interface EmulatorChild {
  child: ChildProcess;
  endpoint: string;
  key: string;
}

function startChild(args: string[]): Promise<EmulatorChild> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const child = spawn(process.execPath, [CLI, 'emulator', 'cosmos', '--port', '0', '--partitions', String(PARTITIONS), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`emulator exited early (${code}): ${out}`)));
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const endpoint = /^endpoint: (\S+)$/m.exec(out);
      const key = /^key: (\S+)$/m.exec(out);
      if (endpoint && key) resolve({ child, endpoint: endpoint[1], key: key[1] });
    });
  });
}

async function stopChild(e: EmulatorChild): Promise<void> {
  e.child.removeAllListeners('exit');
  const exited = new Promise((r) => e.child.once('exit', r));
  e.child.kill('SIGTERM');
  await exited;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function setUp(client: CosmosClient): Promise<Container> {
  const { database } = await client.databases.createIfNotExists({ id: 'bench' });
  // Hash v2, as the recorded results were measured (v1 hashes differently and costs differently).
  const { container } = await database.containers.createIfNotExists({ id: 'docs', partitionKey: hashV2Key('/pk') });
  return container;
}

/** CPU seconds (user + system) the process has used, from /proc (Linux); undefined elsewhere. */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

interface UpsertFigures {
  /** Share of one core the emulator process used during the measured run. */
  emulatorCpu?: number;
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
  docBytes: number;
}

async function upsertLoad(container: Container, label: string, emulatorPid: number | undefined): Promise<UpsertFigures> {
  let seq = 0;
  let docBytes = 0;
  const run = async (ms: number, latencies: number[] | undefined): Promise<number> => {
    const until = Date.now() + ms;
    let done = 0;
    const worker = async (): Promise<void> => {
      while (Date.now() < until) {
        const i = seq++;
        const doc = { id: `${label}-${i}`, pk: `subscription-${i % 1000}`, status: 'Accepted', payload: PAYLOAD };
        const t0 = process.hrtime.bigint();
        const { resource } = await container.items.upsert(doc);
        const t1 = process.hrtime.bigint();
        if (!docBytes && resource) docBytes = Buffer.byteLength(JSON.stringify(resource));
        latencies?.push(Number(t1 - t0) / 1e6);
        done++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return done;
  };
  await run(WARMUP_MS, undefined);
  const latencies: number[] = [];
  const started = Date.now();
  const cpuBefore = cpuSeconds(emulatorPid);
  const count = await run(RUN_MS, latencies);
  const cpuAfter = cpuSeconds(emulatorPid);
  const elapsed = (Date.now() - started) / 1000;
  const emulatorCpu = cpuBefore !== undefined && cpuAfter !== undefined ? (cpuAfter - cpuBefore) / elapsed : undefined;
  return { count, perSecond: count / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), docBytes, emulatorCpu };
}

interface FeedFigures {
  pages: number;
  p50: number;
  p99: number;
}

async function changeFeedReads(container: Container): Promise<FeedFigures> {
  // fill
  let next = 0;
  const fill = async (): Promise<void> => {
    while (next < FEED_DOCS) {
      const i = next++;
      await container.items.upsert({ id: `feed-${i}`, pk: `subscription-${i % 1000}`, status: 'Accepted', payload: PAYLOAD });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, fill));
  const ranges = await container.getFeedRanges();
  const latencies: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const range of ranges) {
      const iterator = container.items.getChangeFeedIterator({
        changeFeedStartFrom: ChangeFeedStartFrom.Beginning(range),
        maxItemCount: FEED_PAGE,
      });
      await iterator.readNext(); // the first call also reads the container and its ranges
      for (;;) {
        const t0 = process.hrtime.bigint();
        const page = await iterator.readNext();
        const t1 = process.hrtime.bigint();
        if (page.statusCode !== 200) break;
        if (page.result.length === FEED_PAGE && round > 0) latencies.push(Number(t1 - t0) / 1e6);
      }
    }
  }
  return { pages: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** The request counters, flat (the request units charged per kind as `RU <kind>`). */
async function counters(e: EmulatorChild): Promise<Record<string, number>> {
  const res = await fetch(`${e.endpoint}_admin/counters`, { headers: { authorization: `Bearer ${e.key}` } });
  const { requestUnits, ...counts } = (await res.json()) as Record<string, number> & { requestUnits?: Record<string, number> };
  const flat: Record<string, number> = { ...counts };
  for (const [kind, ru] of Object.entries(requestUnits ?? {})) flat[`RU ${kind}`] = ru;
  return flat;
}

async function scenario(
  name: string,
  args: string[],
): Promise<{ upserts: UpsertFigures; feed?: FeedFigures; counters: Record<string, number> }> {
  const emu = await startChild(args);
  const client = emulatorClient(emu);
  try {
    const container = await setUp(client);
    process.stderr.write(`${name}: upserts for ${RUN_MS / 1000} s after ${WARMUP_MS / 1000} s warm-up…\n`);
    const upserts = await upsertLoad(container, name, emu.child.pid);
    let feed: FeedFigures | undefined;
    if (args.length === 0) {
      process.stderr.write(`${name}: change-feed pages of ${FEED_PAGE}…\n`);
      feed = await changeFeedReads(container);
    }
    return { upserts, feed, counters: await counters(emu) };
  } finally {
    client.dispose();
    await stopChild(emu);
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cosmos-bench-'));
  try {
    const runs: Array<{ memory: Awaited<ReturnType<typeof scenario>>; journal: Awaited<ReturnType<typeof scenario>> }> = [];
    for (let i = 0; i < RUNS; i++) {
      if (RUNS > 1) process.stderr.write(`run ${i + 1} of ${RUNS}\n`);
      runs.push({
        memory: await scenario('memory', []),
        journal: await scenario('journal', ['--data-dir', join(dataDir, `run-${i + 1}`)]),
      });
    }
    const of = (pick: (r: (typeof runs)[number]) => number | undefined, digits = 1): string => spread(runs.map(pick), digits);
    const upsertRow = (label: string, pick: (r: (typeof runs)[number]) => UpsertFigures, target: string): string =>
      `| ${label} | ${of((r) => pick(r).perSecond, 0)} | ${of((r) => pick(r).p50)} | ${of((r) => pick(r).p99)} | ${of((r) => (pick(r).emulatorCpu === undefined ? undefined : pick(r).emulatorCpu! * 100), 0)} | ${target} |`;
    const first = runs[0].memory;
    const section = [
      '## Cosmos emulator',
      '',
      `Command: \`npm run build && node dist/bench/cosmos-emulator.js${QUICK ? ' --quick' : ''}${RUNS !== 2 ? ` --runs ${RUNS}` : ''} --record\` — ${new Date().toISOString().slice(0, 10)}, ` +
        `${hostname()}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}.`,
      `The emulator runs as a child process (\`opstream emulator cosmos --port 0 --partitions ${PARTITIONS}\`); the load comes from the benchmark process through \`@azure/cosmos\`,`,
      `${CONCURRENCY} requests in flight, ${first.upserts.docBytes}-byte documents (system properties included) over 1,000 partition keys, ${RUN_MS / 1000} s measured after ${WARMUP_MS / 1000} s of warm-up.`,
      'Latencies are measured in the client, so they include the SDK. "Emulator CPU" is the share of one core the emulator process used',
      'while measured: it stays well below 100 %, the single SDK client process (same 2 cores) is what limits the rate.',
      `Both scenarios ran ${RUNS} time(s), alternating, each on a fresh emulator process: every figure is the mean over the runs (min–max).`,
      '',
      '| upserts | per second | p50 ms | p99 ms | emulator CPU % | target |',
      '|---|---:|---:|---:|---:|---|',
      upsertRow('memory only', (r) => r.memory.upserts, '≥ 2,000/s'),
      upsertRow('--data-dir (journal, fsync per group)', (r) => r.journal.upserts, '≥ 1,000/s'),
      '',
      `| change feed, page of ${FEED_PAGE} items | pages timed | p50 ms | p99 ms | target |`,
      '|---|---:|---:|---:|---|',
      `| one range, SDK iterator, \`maxItemCount: ${FEED_PAGE}\`, ${FEED_DOCS} documents | ${of((r) => r.memory.feed?.pages, 0)} | ${of((r) => r.memory.feed?.p50, 2)} | ${of((r) => r.memory.feed?.p99, 2)} | p99 ≤ 5 ms |`,
      '',
      `Emulator request counters (memory scenario, run 1): ${Object.entries(first.counters)
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}.`,
      '',
    ].join('\n');
    process.stdout.write(section + '\n');
    if (RECORD) {
      const file = resultsPath('cosmos-emulator');
      recordSection(file, '## Cosmos emulator', section, '## Change feed processor');
      process.stderr.write(`recorded in ${file}\n`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});

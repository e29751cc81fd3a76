/**
 * Service Bus stand-in benchmark. The stand-in runs in its own child process (the compiled CLI,
 * `opstream emulator service-bus`); this process drives it through the real `@azure/service-bus` SDK.
 *
 *   npm run build && node dist/bench/service-bus.js [--quick] [--runs N] [--record]
 *
 * Figures, 1 KB message bodies, in memory and with `--data-dir` (journal, group commit):
 *   - sends/s: single-message `sendMessages` calls, `SEND_IN_FLIGHT` in flight on one sender;
 *   - receive+complete/s: the messages just sent, taken by `subscribe` (peek-lock, `maxConcurrentCalls`
 *     `RECEIVE_CONCURRENCY`, the SDK completing each after its handler);
 *   - end-to-end latency: one message at a time, from the `sendMessages` call to the receiver's handler.
 * Each scenario runs `--runs` times (default 2) against a fresh child. `--record` replaces the
 * "Service Bus stand-in" section of bench/results/service-bus.md (between its markers); `--cpu-prof DIR` writes
 * a V8 CPU profile of each stand-in child there.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, hostname, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceBusClient, ServiceBusMessage, ServiceBusReceivedMessage } from '@azure/service-bus';
import { summarize } from './harness/stats';
import { resultsPath } from './harness/results-section';
import { benchCommand, wholeNumber } from './harness/cli';

const opts = benchCommand(
  'service-bus',
  'The Service Bus stand-in in a child process, driven through @azure/service-bus: sends/s, receive+complete/s, latency',
)
  .option('--quick', 'shorter measurements (warm-up 1 s and 4 s of sends instead of 2 and 10; 500 latency samples instead of 2,000)')
  .option('--runs <n>', 'each scenario this many times, each against a fresh child', wholeNumber, 2)
  .option('--record', 'replace the "Service Bus stand-in" section of bench/results/service-bus.md')
  .option('--cpu-prof <dir>', 'write a V8 CPU profile of each stand-in child there')
  .parse()
  .opts<{ quick?: true; runs: number; record?: true; cpuProf?: string }>();
const QUICK = opts.quick === true;
const RECORD = opts.record === true;
/** Writes a V8 CPU profile of each stand-in child there (to find where its time goes). */
const PROFILE_DIR = opts.cpuProf;
const RUNS = opts.runs;
const SEND_IN_FLIGHT = 64;
const RECEIVE_CONCURRENCY = 64;
const WARMUP_MS = QUICK ? 1_000 : 2_000;
const SEND_MS = QUICK ? 4_000 : 10_000;
const LATENCY_SAMPLES = QUICK ? 500 : 2_000;
const LATENCY_WARMUP = 100;
const BODY = Buffer.alloc(1024, 0x61); // 1 KB body (sent as an AMQP data section)
const CLI = join(__dirname, '../src/cli/main.js');
const BEGIN = '<!-- service-bus:begin (written by `node dist/bench/service-bus.js --record`; do not edit by hand) -->';
const END = '<!-- service-bus:end -->';

const CONFIG = {
  UserConfig: {
    Namespaces: [
      {
        Name: 'sbemulatorns',
        Queues: [
          { Name: 'throughput', Properties: { LockDuration: 'PT1M', MaxDeliveryCount: 10 } },
          { Name: 'latency', Properties: { LockDuration: 'PT1M', MaxDeliveryCount: 10 } },
        ],
        Topics: [],
      },
    ],
    Logging: { Type: 'File' },
  },
};

interface Child {
  child: ChildProcess;
  connectionString: string;
}

function startChild(args: string[]): Promise<Child> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const nodeArgs = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'emulator', 'service-bus', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`the stand-in exited early (${code}): ${out}`)));
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^connection string: (\S+)$/m.exec(out);
      if (m) resolve({ child, connectionString: m[1] });
    });
  });
}

async function stopChild(c: Child): Promise<void> {
  c.child.removeAllListeners('exit');
  const exited = new Promise((r) => c.child.once('exit', r));
  c.child.kill('SIGTERM');
  await exited;
}

/** CPU seconds (user + system) of a process, from /proc (Linux); undefined elsewhere. */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Share of one core a process used while `fn` ran, with `fn`'s result. */
async function withCpu<T>(pid: number | undefined, fn: () => Promise<T>): Promise<{ result: T; cpu?: number; seconds: number }> {
  const before = cpuSeconds(pid);
  const t0 = process.hrtime.bigint();
  const result = await fn();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = cpuSeconds(pid);
  return { result, seconds, cpu: before !== undefined && after !== undefined ? (after - before) / seconds : undefined };
}

interface Throughput {
  count: number;
  perSecond: number;
  /** share of one core used by the stand-in */
  standInCpu?: number;
  /** share of one core used by this (SDK) process */
  clientCpu: number;
}

const message = (i: number): ServiceBusMessage => ({ body: BODY, messageId: `m-${i}` });

/** Single-message sends, SEND_IN_FLIGHT at a time: a warm-up, then `ms` measured. Returns the measured run and how many were sent in all. */
async function sendFor(client: ServiceBusClient, ms: number, pid: number | undefined): Promise<Throughput & { sentInAll: number }> {
  const sender = client.createSender('throughput');
  let next = 0;
  const run = async (duration: number): Promise<number> => {
    const until = Date.now() + duration;
    let done = 0;
    const worker = async (): Promise<void> => {
      while (Date.now() < until) {
        await sender.sendMessages(message(next++));
        done++;
      }
    };
    await Promise.all(Array.from({ length: SEND_IN_FLIGHT }, worker));
    return done;
  };
  const warm = await run(WARMUP_MS);
  const self0 = process.cpuUsage();
  const { result: count, seconds, cpu } = await withCpu(pid, () => run(ms));
  const self = process.cpuUsage(self0);
  await sender.close();
  return {
    count,
    perSecond: count / seconds,
    standInCpu: cpu,
    clientCpu: (self.user + self.system) / 1e6 / seconds,
    sentInAll: warm + count,
  };
}

/** Receives and completes `count` messages through `subscribe` (peek-lock), completing each in its handler. */
async function receiveAll(client: ServiceBusClient, count: number, pid: number | undefined): Promise<Throughput> {
  const receiver = client.createReceiver('throughput');
  const self0 = process.cpuUsage();
  const { seconds, cpu } = await withCpu(pid, async () => {
    let completed = 0;
    let failure: unknown;
    await new Promise<void>((resolve, reject) => {
      const sub = receiver.subscribe(
        {
          processMessage: async (m: ServiceBusReceivedMessage) => {
            await receiver.completeMessage(m);
            if (++completed === count) void sub.close().then(resolve, reject);
          },
          processError: async (args) => {
            failure ??= args.error;
            void sub.close().then(() => reject(failure), reject);
          },
        },
        { autoCompleteMessages: false, maxConcurrentCalls: RECEIVE_CONCURRENCY },
      );
    });
  });
  const self = process.cpuUsage(self0);
  await receiver.close();
  return { count, perSecond: count / seconds, standInCpu: cpu, clientCpu: (self.user + self.system) / 1e6 / seconds };
}

interface Latency {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

/** One message at a time: `sendMessages` called → the receiver's handler runs (same process clock). */
async function latency(client: ServiceBusClient): Promise<Latency> {
  const sender = client.createSender('latency');
  const receiver = client.createReceiver('latency', { receiveMode: 'receiveAndDelete' });
  const waiting = new Map<string, (at: bigint) => void>();
  const sub = receiver.subscribe(
    {
      processMessage: async (m: ServiceBusReceivedMessage) => waiting.get(String(m.messageId))?.(process.hrtime.bigint()),
      processError: async () => undefined,
    },
    { maxConcurrentCalls: 1 },
  );
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_WARMUP + LATENCY_SAMPLES; i++) {
    const id = `l-${i}`;
    const arrived = new Promise<bigint>((resolve) => waiting.set(id, resolve));
    const t0 = process.hrtime.bigint();
    await sender.sendMessages({ body: BODY, messageId: id });
    const t1 = await arrived;
    waiting.delete(id);
    if (i >= LATENCY_WARMUP) samples.push(Number(t1 - t0) / 1e6);
  }
  await sub.close();
  await receiver.close();
  await sender.close();
  const { n, p50, p99, max } = summarize(samples);
  return { samples: n, p50, p99, max };
}

interface RunFigures {
  sends: Throughput;
  receives: Throughput;
  latency: Latency;
  load: [number, number];
}

async function scenario(name: string, args: string[], run: number): Promise<RunFigures> {
  const child = await startChild(args);
  const client = new ServiceBusClient(child.connectionString);
  const loadBefore = loadavg()[0];
  try {
    process.stderr.write(`${name} #${run}: sends for ${SEND_MS / 1000} s after ${WARMUP_MS / 1000} s warm-up…\n`);
    const sends = await sendFor(client, SEND_MS, child.child.pid);
    process.stderr.write(`${name} #${run}: receive+complete of the ${sends.sentInAll} messages sent…\n`);
    const receives = await receiveAll(client, sends.sentInAll, child.child.pid);
    process.stderr.write(`${name} #${run}: end-to-end latency, ${LATENCY_SAMPLES} messages one at a time…\n`);
    const lat = await latency(client);
    return { sends, receives, latency: lat, load: [loadBefore, loadavg()[0]] };
  } finally {
    await client.close();
    await stopChild(child);
  }
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const pct = (n: number | undefined): string => (n === undefined ? 'n/a' : `${Math.round(n * 100)} %`);

/** "a / b (spread x %)": each run's figure, then (max − min) / min. */
function perRun(values: number[], digits = 0): string {
  const spread =
    values.length > 1 ? ` (spread ${Math.round(((Math.max(...values) - Math.min(...values)) / Math.min(...values)) * 100)} %)` : '';
  return values.map((v) => fmt(v, digits)).join(' / ') + spread;
}

function table(name: string, runs: RunFigures[], targets: { sends: string; receives: string; p99: string }): string[] {
  return [
    `| ${name} sends/s | ${perRun(runs.map((r) => r.sends.perSecond))} | ${runs.map((r) => pct(r.sends.standInCpu)).join(' / ')} | ${runs.map((r) => pct(r.sends.clientCpu)).join(' / ')} | ${targets.sends} |`,
    `| ${name} receive+complete/s | ${perRun(runs.map((r) => r.receives.perSecond))} | ${runs.map((r) => pct(r.receives.standInCpu)).join(' / ')} | ${runs.map((r) => pct(r.receives.clientCpu)).join(' / ')} | ${targets.receives} |`,
    `| ${name} send → receive p50 ms | ${perRun(
      runs.map((r) => r.latency.p50),
      2,
    )} | | | |`,
    `| ${name} send → receive p99 ms | ${perRun(
      runs.map((r) => r.latency.p99),
      2,
    )} | | | ${targets.p99} |`,
    `| ${name} send → receive max ms | ${perRun(
      runs.map((r) => r.latency.max),
      1,
    )} | | | |`,
  ];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'service-bus-bench-'));
  const config = join(dir, 'Config.json');
  writeFileSync(config, JSON.stringify(CONFIG));
  const memory: RunFigures[] = [];
  const durable: RunFigures[] = [];
  const started = Date.now();
  try {
    // alternated, so a change in the machine's load shows in both
    for (let run = 1; run <= RUNS; run++) {
      memory.push(await scenario('memory', ['--config', config], run));
      const dataDir = join(dir, `data-${run}`);
      durable.push(await scenario('--data-dir', ['--config', config, '--data-dir', dataDir], run));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const loads = [...memory, ...durable].flatMap((r) => r.load);
  const section = [
    BEGIN,
    '## Service Bus stand-in',
    '',
    `Command: \`npm run build && node dist/bench/service-bus.js${QUICK ? ' --quick' : ''} --runs ${RUNS} --record\` — ${new Date().toISOString().slice(0, 10)}, ` +
      `${hostname()}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}, ${Math.round((Date.now() - started) / 1000)} s.`,
    'The stand-in runs as a child process (`opstream emulator service-bus --port 0 --config …`, and with `--data-dir` for the journal:',
    'one fdatasync per group commit, a send acknowledged once durable); the load comes from this process through `@azure/service-bus`',
    `7.9 on one connection, ${BODY.length}-byte bodies. Sends: single-message \`sendMessages\` calls, ${SEND_IN_FLIGHT} in flight on one sender,`,
    `${SEND_MS / 1000} s measured after ${WARMUP_MS / 1000} s of warm-up. Receive+complete: every message those sends left in the queue, through \`subscribe\``,
    `(peek-lock, \`maxConcurrentCalls: ${RECEIVE_CONCURRENCY}\`, each completed in its handler; counted once \`completeMessage\` resolved).`,
    `Latency: ${LATENCY_SAMPLES} messages one at a time (after ${LATENCY_WARMUP} unmeasured), from the \`sendMessages\` call to the receiver's`,
    'handler (receive-and-delete, one process clock), so it includes both SDK sides; no other load on the stand-in.',
    `Figures per run (${RUNS} runs, memory and --data-dir alternated, each on a fresh child), "spread" = (max − min) / min.`,
    'CPU columns: share of one core used by the stand-in process and by the SDK process during the measured part.',
    `The machine's 2 cores are shared with other work: 1-minute load average ${fmt(Math.min(...loads), 2)} to ${fmt(Math.max(...loads), 2)} during the runs.`,
    '',
    '| figure | per run | stand-in CPU | SDK process CPU | target |',
    '|---|---:|---:|---:|---|',
    ...table('memory', memory, { sends: '≥ 5,000/s', receives: '≥ 5,000/s', p99: '≤ 5 ms (unloaded)' }),
    ...table('--data-dir', durable, { sends: '≥ 1,000/s', receives: '≥ 1,000/s', p99: '' }),
    END,
  ].join('\n');
  process.stdout.write(section + '\n');
  if (RECORD) record(section);
}

/** Replaces (or appends) this benchmark's section of bench/results/service-bus.md, leaving the others alone. */
function record(section: string): void {
  const file = resultsPath('service-bus');
  const text = readFileSync(file, 'utf8');
  const i = text.indexOf(BEGIN);
  const j = text.indexOf(END);
  writeFileSync(file, i >= 0 && j > i ? `${text.slice(0, i)}${section}${text.slice(j + END.length)}` : `${text.trimEnd()}\n\n${section}\n`);
  process.stderr.write(`recorded in ${file}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});

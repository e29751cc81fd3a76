/**
 * Does a tap client that never reads slow the pipeline down? `opstream run` in a child process
 * (its own event loop, as in production) takes the same open-loop workload of cluster creates
 * four times: without slow clients, then with K clients on `/streams/*` that never read a byte,
 * twice over (drift check). Reaction latency (frontend write → first handling, the pipeline's
 * own `reactionMs`) is collected from one client that reads the `active` stream in every phase.
 *
 *   npm run build && node dist/bench/slow-tap.js [--quick] [--record]
 *
 * `--record` replaces the "## Slow tap clients" section of bench/results/slow-tap.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { startClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { startCosmosEmulator } from '@opstream/cosmos-emulator';
import {
  FrontendSimulator,
  startNotificationReceiver,
  type NotificationReceiver,
  type WrittenOperation,
} from '@opstream/frontend-simulator';
import { SseParser } from '../src/cli/sse-parser';
import { emulatorClient } from '@opstream/cosmos-emulator/client-options';
import { benchCommand } from './harness/cli';
import { resultsPath, sectionEnd } from './harness/results-section';
import { summarize, type Summary } from './harness/stats';

const opts = benchCommand(
  'slow-tap',
  'Does a tap client that never reads slow the pipeline down? Reaction latency without and with slow clients',
)
  .option('--quick', 'a lower rate and shorter phases (10 creates/s for 20 s instead of 20/s for 60 s)')
  .option('--record', 'replace the "## Slow tap clients" section of bench/results/slow-tap.md')
  .parse()
  .opts<{ quick?: true; record?: true }>();
const QUICK = opts.quick === true;
const RECORD = opts.record === true;
const RATE = QUICK ? 10 : 20; // cluster creates per second
const PHASE_MS = QUICK ? 20_000 : 60_000;
const WARMUP_MS = 5_000;
const SLOW_CLIENTS = 20;
const SUBSCRIPTIONS = 50;
const SECTION = '## Slow tap clients';
const CLI = join(__dirname, '../src/cli/main.js');
const RESULTS = resultsPath('slow-tap');

interface PhaseResult {
  name: string;
  slowClients: number;
  operations: number;
  reaction: Summary;
  dropped: number;
  disconnected: number;
  cpuSeconds: number;
  /** 1-minute load average of the machine when the phase ended (other work on the 2 cores shows here). */
  load: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function metric(opsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(name) && !line.startsWith('#')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

/** Follows `active` and records the first `reactionMs` of each operation. */
function followReactions(opsUrl: string, into: Map<string, number>, signal: AbortSignal): Promise<void> {
  return (async () => {
    const res = await fetch(`${opsUrl}/streams/active`, { signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const parser = new SseParser();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const m of parser.push(decoder.decode(value, { stream: true }))) {
        const e = JSON.parse(m.data) as { data: { operationId?: string; reactionMs?: number } };
        if (e.data.operationId && typeof e.data.reactionMs === 'number' && !into.has(e.data.operationId))
          into.set(e.data.operationId, e.data.reactionMs);
      }
    }
  })().catch(() => undefined);
}

function slowClient(opsUrl: string): Socket {
  const { hostname: host, port } = new URL(opsUrl);
  const socket = connect(Number(port), host);
  socket.pause(); // never read a byte
  socket.on('error', () => undefined);
  socket.once('connect', () => socket.write(`GET /streams/* HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`));
  return socket;
}

/**
 * How many of the slow clients the server disconnected: a paused socket does not see the end of
 * its connection, so read what the kernel kept for it and wait (bounded) for the end.
 */
async function countDisconnected(sockets: Socket[]): Promise<number> {
  const ended = sockets.map(
    (s) =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 10_000);
        s.once('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
        s.on('data', () => undefined);
        s.resume();
      }),
  );
  return (await Promise.all(ended)).filter(Boolean).length;
}

async function startOpstream(env: Record<string, string>): Promise<{ child: ChildProcess; opsUrl: string }> {
  const child = spawn(process.execPath, [CLI, 'run'], {
    env: { ...process.env, ...env, OPSTREAM_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  for (let i = 0; i < 600; i++) {
    const url = /ops server (http:\/\/[\d.:]+)/.exec(stderr)?.[1];
    if (
      url &&
      (await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      ))
    )
      return { child, opsUrl: url };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`opstream run did not become ready: ${stderr.slice(-2000)}`);
}

async function runPhase(
  name: string,
  slowClients: number,
  durationMs: number,
  ctx: { opsUrl: string; frontend: FrontendSimulator; receiver: NotificationReceiver; subs: string[]; reactions: Map<string, number> },
): Promise<PhaseResult> {
  const sockets = Array.from({ length: slowClients }, () => slowClient(ctx.opsUrl));
  await sleep(500);
  const dropped0 = await metric(ctx.opsUrl, 'opstream_tap_events_dropped_total');
  const cpu0 = await metric(ctx.opsUrl, 'process_cpu_seconds_total');
  const issued: Array<Promise<WrittenOperation>> = [];
  const started = Date.now();
  for (let i = 0; Date.now() - started < durationMs; i++) {
    const due = started + (i * 1000) / RATE;
    if (due > Date.now()) await sleep(due - Date.now());
    issued.push(ctx.frontend.createCluster(ctx.subs[i % ctx.subs.length], 'rg', `${name}-${i}`));
  }
  const ops = await Promise.all(issued);
  await Promise.all(ops.map((op) => ctx.receiver.waitForNotification(op.operationId, 300_000)));
  const load = loadavg()[0];
  const dropped = (await metric(ctx.opsUrl, 'opstream_tap_events_dropped_total')) - dropped0;
  const cpuSeconds = (await metric(ctx.opsUrl, 'process_cpu_seconds_total')) - cpu0;
  const disconnected = await countDisconnected(sockets);
  const result: PhaseResult = {
    name,
    slowClients,
    operations: ops.length,
    reaction: summarize(ops.map((op) => ctx.reactions.get(op.operationId)).filter((v): v is number => v !== undefined)),
    dropped,
    disconnected,
    cpuSeconds,
    load,
  };
  for (const s of sockets) s.destroy();
  process.stderr.write(`${name}: ${JSON.stringify(result)}\n`);
  return result;
}

function render(results: PhaseResult[]): string {
  const f = (v: number): string => (Number.isFinite(v) ? String(Math.round(v)) : 'n/a');
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${r.slowClients} | ${r.operations} | ${r.reaction.n} | ${f(r.reaction.p50)} / ${f(r.reaction.p90)} / ${f(r.reaction.p99)} / ${f(r.reaction.max)} | ${r.dropped} | ${r.disconnected} | ${r.cpuSeconds.toFixed(1)} | ${r.load.toFixed(1)} |`,
  );
  return [
    SECTION,
    '',
    `Command: \`npm run build && node dist/bench/slow-tap.js${QUICK ? ' --quick' : ''} --record\` (${new Date().toISOString().slice(0, 10)}, ${hostname()}, ${cpus().length} cores, Node ${process.version}).`,
    `\`opstream run\` in a child process (default SSE limits: 256 KiB buffered per client, disconnected after 1,000 events dropped in a row) against the in-process`,
    `Cosmos emulator (4 partitions) and Clusters Service simulator; ${RATE} cluster creates/s over ${SUBSCRIPTIONS} subscriptions for ${PHASE_MS / 1000} s per phase (open loop),`,
    `after a ${WARMUP_MS / 1000} s warm-up; each phase waits for every operation to finish. Reaction = frontend write → first handling (the pipeline's \`reactionMs\`), read from one client following \`/streams/active\` in every phase.`,
    `"slow clients" connect to \`/streams/*\` and never read a byte; "disconnected" counts those the server had closed by the end of the phase.`,
    `The machine's 2 cores are shared with other work (last column: 1-minute load average at the end of the phase).`,
    '',
    '| phase | slow clients | operations | reactions measured | reaction p50 / p90 / p99 / max (ms) | tap events dropped | slow clients disconnected | opstream CPU (s) | load average |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}

function record(section: string): void {
  const current = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '# Benchmark results\n';
  const start = current.indexOf(SECTION);
  let next: string;
  if (start < 0) next = `${current.trimEnd()}\n\n${section}`;
  else {
    const end = sectionEnd(current, start + SECTION.length);
    next = current.slice(0, start) + section + (end < current.length ? `\n${current.slice(end)}` : '');
  }
  writeFileSync(RESULTS, next.endsWith('\n') ? next : `${next}\n`);
}

async function main(): Promise<void> {
  const emu = await startCosmosEmulator({ port: 0, partitions: 4 });
  const cs = await startClustersServiceSimulator({ port: 0, durations: { pendingMs: 200, validatingMs: 200, installingMs: 400 } });
  const receiver = await startNotificationReceiver();
  const client = emulatorClient(emu);
  const databaseId = `slowtap${Date.now().toString(36)}`;
  const { child, opsUrl } = await startOpstream({
    OPSTREAM_COSMOS_ENDPOINT: emu.endpoint,
    OPSTREAM_COSMOS_KEY: emu.key,
    OPSTREAM_COSMOS_DATABASE: databaseId,
    OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true',
    OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
    // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
    OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
    OPSTREAM_CHANGEFEED_START_FROM: 'beginning',
    OPSTREAM_OPS_ADDR: '127.0.0.1:0',
  });
  const frontend = new FrontendSimulator({ database: client.database(databaseId), notificationBaseUrl: receiver.url });
  const subs = Array.from({ length: SUBSCRIPTIONS }, () => crypto.randomUUID());
  for (const s of subs) await frontend.registerSubscription(s, crypto.randomUUID());
  const reactions = new Map<string, number>();
  const stopFollowing = new AbortController();
  const following = followReactions(opsUrl, reactions, stopFollowing.signal);
  const ctx = { opsUrl, frontend, receiver, subs, reactions };
  try {
    await runPhase('warm-up', 0, WARMUP_MS, ctx); // JIT and caches, not recorded
    // Alternated, so drift (caches, other work on the machine) shows as a difference between rounds.
    const results: PhaseResult[] = [];
    for (const round of [1, 2]) {
      results.push(await runPhase(`without (${round})`, 0, PHASE_MS, ctx));
      results.push(await runPhase(`slow (${round})`, SLOW_CLIENTS, PHASE_MS, ctx));
    }
    const section = render(results);
    process.stdout.write(`${section}\n`);
    if (RECORD) record(section);
  } finally {
    stopFollowing.abort();
    await following;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    client.dispose();
    await receiver.close();
    await cs.close();
    await emu.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

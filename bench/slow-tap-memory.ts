/**
 * What stream clients that never read cost the instance in memory when events are large (issue 39):
 * the ops server with its default SSE limits, K clients on `/streams/operations` that connect and never
 * read a byte, then 16 events of 250 KiB (and of 1 MiB) each published. Each K runs in a fresh child process (its own
 * heap), which reports its growth after a forced collection: RSS, heap and external memory, against the
 * same process with the clients connected and no event yet. The clients' sockets are in that process too,
 * but paused: what they are sent waits in the kernel, not in its memory.
 *
 *   npm run build && node dist/bench/slow-tap-memory.js [--clients 10,100] [--event-kib 250,1024] [--out <file>] [--baseline <file>] [--record]
 *
 * `--out` saves the figures as JSON; `--baseline` adds a saved run (e.g. one of the build before the
 * change) to the section; `--record` writes the "## Slow tap memory" section of bench/results/slow-tap-memory.md and
 * the figures to bench/results/slow-tap-memory/run.json.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createMetrics } from '../src/ops/metrics';
import { startOpsServer } from '../src/ops/ops-server';
import { TapRegistry } from '../src/ops/taps';
import { benchCommand, progressLog } from './harness/cli';
import { recordSection, resultsPath, writeRunData } from './harness/results-section';

const EVENTS = 16;
const SECTION = '## Slow tap memory';
const AFTER = '## Slow tap clients';
const RESULTS = resultsPath('slow-tap-memory');
const RUN_FILE = resultsPath('slow-tap-memory', 'run.json');
const MIB = 2 ** 20;

interface Growth {
  clients: number;
  eventKiB: number;
  /** Kernel TCP buffers of the whole machine (/proc/net/sockstat): where a client's unread bytes wait. */
  kernelMiB: number;
  rssMiB: number;
  heapMiB: number;
  externalMiB: number;
  dropped: number;
}

interface Run {
  date: string;
  node: string;
  cores: number;
  load: number;
  label: string;
  rows: Growth[];
}

const opts = benchCommand('slow-tap-memory', 'Memory that stream clients that never read cost, with 250 KB events')
  .option('--clients <list>', 'client counts, one child process each', '10,100')
  .option('--event-kib <list>', 'event sizes in KiB, each with every client count', '250,1024')
  .option('--label <text>', 'what build this is, in the section', 'this build')
  .option('--out <file>', 'save the figures as JSON')
  .option('--baseline <file>', 'a saved run to show beside this one')
  .option('--record', 'write the section of bench/results/slow-tap-memory.md and the figures to bench/results/slow-tap-memory/run.json')
  .option('--child <clients,eventKiB>', '(internal) measure in this process')
  .parse()
  .opts<{ clients: string; eventKib: string; label: string; out?: string; baseline?: string; record?: true; child?: string }>();

/** Memory after a full collection. */
function settledMemory(): NodeJS.MemoryUsage {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage();
}

/** Resolves after `ms`: the bench waits for writes to reach the kernel, nothing a test would wait for. */
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Pages of kernel memory all TCP sockets of the machine hold (`TCP: … mem N`). */
function kernelTcpBytes(): number {
  const pages = /^TCP:.* mem (\d+)/m.exec(readFileSync('/proc/net/sockstat', 'utf8'))?.[1];
  return Number(pages ?? 0) * 4096;
}

async function child(clients: number, eventKiB: number): Promise<Growth> {
  const taps = new TapRegistry(['operations']);
  const metrics = createMetrics({ defaultMetrics: false });
  const server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    taps,
    metrics,
    readiness: async () => ({ ready: true, checks: {} }),
    maxStreamClients: clients + 1,
  });
  const { port } = new URL(server.url);
  const sockets: Socket[] = [];
  for (let i = 0; i < clients; i++) {
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(`GET /streams/operations HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    socket.pause(); // never reads
    sockets.push(socket);
  }
  while ((await metrics.tapClients.get()).values[0]?.value !== clients) await pause(20);
  const before = settledMemory();
  const kernelBefore = kernelTcpBytes();
  for (let i = 0; i < EVENTS; i++) {
    taps.publish('operations', { n: i, pad: 'x'.repeat(eventKiB * 1024) });
    await pause(50);
  }
  await pause(500);
  const after = settledMemory();
  const kernelMiB = (kernelTcpBytes() - kernelBefore) / MIB;
  const dropped = (await metrics.tapDrops.get()).values.reduce((sum, v) => sum + v.value, 0);
  for (const s of sockets) s.destroy();
  await server.close();
  return {
    clients,
    eventKiB,
    kernelMiB,
    rssMiB: (after.rss - before.rss) / MIB,
    heapMiB: (after.heapUsed - before.heapUsed) / MIB,
    externalMiB: (after.external - before.external) / MIB,
    dropped,
  };
}

function section(run: Run, baseline: Run | undefined): string {
  const table = (r: Run): string[] => [
    `| build | event KiB | clients | RSS growth MiB | per client MiB (RSS) | heap growth MiB | external growth MiB | events dropped | kernel TCP growth MiB (machine) |`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|`,
    ...r.rows.map(
      (g) =>
        `| ${r.label} | ${g.eventKiB} | ${g.clients} | ${g.rssMiB.toFixed(1)} | ${(g.rssMiB / g.clients).toFixed(2)} | ${g.heapMiB.toFixed(1)} | ${g.externalMiB.toFixed(1)} | ${g.dropped} | ${g.kernelMiB.toFixed(1)} |`,
    ),
  ];
  return [
    SECTION,
    '',
    `Command: \`npm run build && node dist/bench/slow-tap-memory.js --record\` (${run.date}, ${run.cores} cores, Node ${run.node}, load ${run.load.toFixed(1)}; figures in bench/results/slow-tap-memory/run.json).`,
    `The ops server alone with its default stream limits; K clients on \`/streams/operations\` that never read a byte, then ${EVENTS} events of the size given; growth after a forced collection against the same process with the clients connected, one fresh process per K. The last column is the machine's TCP memory (/proc/net/sockstat): what the unread sockets hold in the kernel, outside the process.`,
    '',
    ...(baseline ? [...table(baseline), ...table(run).slice(2)] : table(run)),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  if (opts.child !== undefined) {
    const [clients, eventKiB] = opts.child.split(',').map(Number);
    process.stdout.write(`${JSON.stringify(await child(clients, eventKiB))}\n`);
    return;
  }
  const log = progressLog('slow-tap-memory');
  const rows: Growth[] = [];
  for (const eventKiB of opts.eventKib.split(',').map(Number))
    for (const clients of opts.clients.split(',').map(Number)) {
      log(`${clients} clients, ${eventKiB} KiB events`);
      const out = execFileSync(process.execPath, [__filename, '--child', `${clients},${eventKiB}`], { encoding: 'utf8', timeout: 120_000 });
      rows.push(JSON.parse(out) as Growth);
      log(JSON.stringify(rows[rows.length - 1]));
    }
  const run: Run = {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    cores: cpus().length,
    load: loadavg()[0],
    label: opts.label,
    rows,
  };
  const baseline = opts.baseline ? (JSON.parse(readFileSync(opts.baseline, 'utf8')) as Run) : undefined;
  if (opts.out) writeFileSync(opts.out, `${JSON.stringify(run, null, 2)}\n`);
  const text = section(run, baseline);
  process.stdout.write(`${text}\n`);
  if (opts.record) {
    writeRunData(RUN_FILE, { run, baseline });
    recordSection(RESULTS, SECTION, text, AFTER);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`slow-tap-memory: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

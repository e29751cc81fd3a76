/**
 * How long opstream takes to hand its work over when it is stopped: two `opstream run` processes
 * (production defaults) share the leases of a 4-range Operations container; one is stopped with
 * SIGTERM (graceful) or SIGKILL (a crash), and the figures are read from outside: when the stopped
 * process exits, when the other one holds every lease (read from the Leases container).
 *
 *   npm run build && node dist/bench/shutdown.js [--rounds N] [--record]
 *
 * --record writes the "Shutdown" section of bench/results/shutdown.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CosmosClient } from '@azure/cosmos';
import { startClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { startCosmosEmulator } from '@opstream/cosmos-emulator';
import { resultsPath } from './harness/results-section';
import { benchCommand, wholeNumber } from './harness/cli';

const CLI = join(__dirname, '..', 'src', 'cli', 'main.js');
const RESULTS = resultsPath('shutdown');
const BEGIN = '<!-- shutdown:begin (written by `node dist/bench/shutdown.js --record`; do not edit by hand) -->';
const END = '<!-- shutdown:end -->';

interface Instance {
  name: string;
  proc: ChildProcess;
  exited: Promise<number | null>;
  metricsUrl: Promise<string>;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main(): Promise<void> {
  const opts = benchCommand(
    'shutdown',
    'How long opstream takes to hand its work over when stopped with SIGTERM (graceful) or SIGKILL (a crash)',
  )
    .option('--rounds <n>', 'rounds, each stopping one instance with SIGTERM and one with SIGKILL', wholeNumber, 5)
    .option('--record', 'write the "Shutdown" section of bench/results/shutdown.md')
    .parse()
    .opts<{ rounds: number; record?: true }>();
  const { rounds } = opts;
  const emulator = await startCosmosEmulator({ port: 0, partitions: 4 });
  const cs = await startClustersServiceSimulator({ port: 0 });
  const client = new CosmosClient({ endpoint: emulator.endpoint, key: emulator.key, connectionPolicy: { enableEndpointDiscovery: false } });
  const database = `shutdown-${Date.now().toString(36)}`;
  const env = {
    ...process.env,
    OPSTREAM_COSMOS_ENDPOINT: emulator.endpoint,
    OPSTREAM_COSMOS_KEY: emulator.key,
    OPSTREAM_COSMOS_DATABASE: database,
    OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true',
    OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
    // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
    OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
    OPSTREAM_OPS_ADDR: '127.0.0.1:0',
    OPSTREAM_OPS_METRICS_ADDR: '127.0.0.1:0',
    OPSTREAM_LOG_LEVEL: 'warn',
  };
  const start = (name: string): Instance => {
    const proc = spawn(process.execPath, [CLI, 'run'], {
      env: { ...env, OPSTREAM_CHANGEFEED_INSTANCE_NAME: name },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const metricsUrl = new Promise<string>((resolve) =>
      proc.stderr?.on('data', (c: Buffer) => {
        stderr += c.toString('utf8');
        const m = /probes and metrics (\S+);/.exec(stderr);
        if (m) resolve(m[1]);
      }),
    );
    return { name, proc, exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))), metricsUrl };
  };
  const owners = async (): Promise<string[]> => {
    const { resources } = await client
      .database(database)
      .container('Leases')
      .items.query<{ LeaseToken?: string; Owner?: string | null }>('SELECT * FROM c')
      .fetchAll();
    return resources.filter((l) => l.LeaseToken).map((l) => l.Owner ?? '');
  };
  const figures: Record<'SIGTERM' | 'SIGKILL', Array<{ exitMs: number; takeoverMs: number; unready: boolean; exitCode: number | null }>> = {
    SIGTERM: [],
    SIGKILL: [],
  };
  const survivor = start('b-0');
  await survivor.metricsUrl;
  for (let round = 0; round < rounds; round++) {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      const victim = start(`a-${round}-${signal}`);
      const metricsUrl = await victim.metricsUrl;
      // Both hold leases: the victim took its share from the survivor.
      await until(
        'the leases to be shared',
        async () => ((await owners()).filter((o) => o === victim.name).length === 2 ? true : undefined),
        120_000,
      );
      const t0 = Date.now();
      victim.proc.kill(signal);
      const readyz =
        signal === 'SIGTERM'
          ? await fetch(`${metricsUrl}/readyz`).then(
              (r) => r.status,
              () => 0,
            )
          : 0;
      const exitCode = await victim.exited;
      const exitMs = Date.now() - t0;
      await until(
        'the survivor to hold every lease',
        async () => ((await owners()).every((o) => o === survivor.name) ? true : undefined),
        120_000,
      );
      figures[signal].push({ exitMs, takeoverMs: Date.now() - t0, unready: readyz === 503, exitCode });
      process.stderr.write(
        `round ${round + 1} ${signal}: exit ${exitMs} ms, takeover ${Date.now() - t0} ms${signal === 'SIGTERM' ? `, /readyz ${readyz}` : ''}\n`,
      );
    }
  }
  survivor.proc.kill('SIGTERM');
  await survivor.exited;
  client.dispose();
  await cs.close();
  await emulator.close();

  const stat = (xs: number[]): string => {
    const s = [...xs].sort((a, b) => a - b);
    return `${s[Math.floor(s.length / 2)]} / ${s[s.length - 1]}`;
  };
  const rows = (['SIGTERM', 'SIGKILL'] as const).map((signal) => {
    const f = figures[signal];
    return `| ${signal} | ${f.length} | ${stat(f.map((x) => x.exitMs))} | ${stat(f.map((x) => x.takeoverMs))} | ${signal === 'SIGTERM' ? `${f.filter((x) => x.unready).length}/${f.length}` : 'n/a'} | ${[...new Set(f.map((x) => String(x.exitCode)))].join(', ')} |`;
  });
  const section = [
    BEGIN,
    '## Shutdown',
    '',
    `Command: \`npm run build && node dist/bench/shutdown.js --record\` (${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, Node ${process.version}); ${rounds} rounds.`,
    'Two `opstream run` processes with production defaults (lease expiry 30 s, acquire interval 5 s) share the 4 leases of the local emulator; one is stopped and figures are read from outside:',
    'its exit, and the moment the other holds all 4 leases (Leases container). Idle instances: a handling in flight adds up to `shutdown.drainTimeoutMs` (15 s) to a SIGTERM.',
    '',
    '| signal | rounds | signal → exit, ms (median / max) | signal → other instance holds every lease, ms (median / max) | /readyz 503 right after the signal | exit codes |',
    '|---|---|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
  if (opts.record) {
    const text = readFileSync(RESULTS, 'utf8');
    const i = text.indexOf(BEGIN);
    const j = text.indexOf(END);
    writeFileSync(
      RESULTS,
      i >= 0 && j > i ? `${text.slice(0, i)}${section}${text.slice(j + END.length)}` : `${text.trimEnd()}\n\n${section}\n`,
    );
  }
  // Exit once the table is written out (a pipe would otherwise be cut short).
  process.stdout.write(`${section}\n`, () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`shutdown bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

/**
 * Peak memory of one opstream instance that takes over ranges full of active operations, with its
 * queue bounded (`pipeline.maxScheduled`): the state after a Clusters Service outage, when nothing
 * finishes and a new owner relists everything. The relists read their feed ranges only, page by
 * page, and offer an operation only when the queue has room; so 20,000 active operations should
 * cost about what 500 do (issue: "peak RSS stays within 60 MiB of the figure with 500").
 *
 *   npm run build && node dist/bench/relist-memory.js [--operations 20000] [--max-scheduled 500] [--hold-ms 30000] [--runs N] [--cli <main.js>] [--record]
 *   node dist/bench/relist-memory.js --render bench/results/relist-memory/run.json [--record]   (the recorded run again)
 *
 * For each size (max-scheduled, then --operations), on a fresh stack (Cosmos emulator process, CS
 * simulator, ARM receiver): the operations (Create, Accepted, each with its Resource, over 256
 * registered subscriptions) are written first; Clusters Service installs for an hour, so none ends.
 * Then one `opstream run` starts with fresh leases at `now` (only relists find the operations),
 * `pipeline.maxScheduled` as given and a periodic relist every 5 s; once its queue holds what fits
 * it runs `--hold-ms` more, and its peak RSS (VmHWM) is read from /proc. `--cli` measures another
 * build (e.g. one from before the change). `--record` writes the section of bench/results/relist-memory.md and
 * the figures to bench/results/relist-memory/run.json.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { clusterArmId, operationStatusId } from '@opstream/frontend-simulator';
import { resourceDocumentId } from '../src/domain/ids';
import { benchCommand, progressLog, wholeNumber } from './harness/cli';
import { recordSection, resultsPath, writeRunData } from './harness/results-section';
import { startStack, type Stack } from './harness/stack';
import { CLI } from './harness/emulator-process';
import { Child } from './harness/child-process';

const log = progressLog('relist-memory');
const RESULTS = resultsPath('relist-memory');
const SECTION = '## Relist memory: active operations far past the queue bound';
const AFTER = '## Under overload: started operations first vs first come, first served';
const RUN_FILE = resultsPath('relist-memory', 'run.json');
const SUBSCRIPTIONS = 256;
const WRITE_CONCURRENCY = 32;
const HOUR_MS = 3_600_000;

interface Measured {
  readonly operations: number;
  readonly peakRssMiB: number;
  readonly scheduled: number;
  readonly secondsToFill: number;
}

/** Writes `n` active Create operations, each with its Resource, `WRITE_CONCURRENCY` at a time. */
async function seed(stack: Stack, n: number): Promise<void> {
  const subs = Array.from({ length: SUBSCRIPTIONS }, () => randomUUID());
  for (const sub of subs) await stack.frontend.registerSubscription(sub, randomUUID());
  const operations = stack.database.container('Operations');
  const resources = stack.database.container('Resources');
  const now = new Date().toISOString();
  let next = 0;
  const writer = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++) {
      const sub = subs[i % SUBSCRIPTIONS] as string;
      const pk = sub.toLowerCase();
      const armId = clusterArmId(sub, 'rg', `c-${i}`);
      const id = randomUUID();
      await resources.items.create({
        id: resourceDocumentId(armId),
        partitionKey: pk,
        resourceId: armId,
        resourceType: 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters',
        internalId: '',
        activeOperationId: id,
        provisioningState: 'Accepted',
        properties: { version: '4.18', region: 'eastus', managedResourceGroupName: `rg-c-${i}-managed` },
      });
      await operations.items.create({
        id,
        partitionKey: pk,
        request: 'Create',
        externalId: armId,
        internalId: '',
        operationId: operationStatusId(sub, 'eastus', id),
        correlationRequestId: randomUUID(),
        clientRequestId: randomUUID(),
        startTime: now,
        lastTransitionTime: now,
        status: 'Accepted',
      });
      if ((i + 1) % 5000 === 0) log(`  ${i + 1} of ${n} written`);
    }
  };
  await Promise.all(Array.from({ length: WRITE_CONCURRENCY }, writer));
}

function gauge(metrics: string | undefined, name: string): number | undefined {
  const m = metrics === undefined ? null : new RegExp(`^${name} (\\d+(?:\\.\\d+)?)$`, 'm').exec(metrics);
  return m ? Number(m[1]) : undefined;
}

async function measure(n: number, maxScheduled: number, holdMs: number, cli: string): Promise<Measured> {
  const stack = await startStack(`${n} operations`);
  try {
    await stack.useDatabase(`relist-${n}-${Date.now().toString(36)}`);
    stack.setDurationsFor(() => ({ installingMs: HOUR_MS }));
    log(`writing ${n} active operations`);
    await seed(stack, n);
    const child = await Child.start({
      label: `opstream (${n} operations)`,
      args: [cli, 'run'],
      env: {
        OPSTREAM_COSMOS_ENDPOINT: stack.target.cosmosEndpoint,
        OPSTREAM_COSMOS_KEY: stack.target.cosmosKey,
        OPSTREAM_COSMOS_DATABASE: stack.target.database,
        OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true',
        OPSTREAM_CLUSTERS_SERVICE_URL: stack.target.clustersServiceUrl,
        OPSTREAM_CHANGEFEED_INSTANCE_NAME: 'relist-memory',
        OPSTREAM_CHANGEFEED_START_FROM: 'now',
        OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '500',
        OPSTREAM_PIPELINE_MAX_SCHEDULED: String(maxScheduled),
        OPSTREAM_PIPELINE_RELIST_INTERVAL_MS: '5000',
        OPSTREAM_OPS_ADDR: '127.0.0.1:0',
        OPSTREAM_LOG_LEVEL: 'warn',
        OPSTREAM_LOG_FORMAT: 'json',
      },
      ready: /running/,
    });
    const base = /ops server (http:\/\/[^\s;]+)/
      .exec(child.output().find((l) => /ops server http:\/\//.test(l)) ?? '')?.[1]
      ?.replace(/\/$/, '');
    if (!base) throw new Error('opstream printed no ops server address');
    const scheduled = async (): Promise<number> =>
      gauge(await fetch(`${base}/metrics`).then((r) => r.text()), 'opstream_scheduled_operations') ?? 0;
    const want = Math.min(n, maxScheduled);
    const started = Date.now();
    while ((await scheduled()) < want) {
      if (Date.now() - started > 15 * 60_000) throw new Error(`the queue never held ${want} operations (has ${await scheduled()})`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const secondsToFill = (Date.now() - started) / 1000;
    log(`  queue holds ${want} after ${secondsToFill.toFixed(1)} s; holding ${holdMs / 1000} s (periodic relists every 5 s)`);
    await new Promise((r) => setTimeout(r, holdMs));
    const held = await scheduled();
    const last = await child.stop();
    const peakRssMiB = (last?.peakRssBytes ?? NaN) / (1024 * 1024);
    log(`  peak RSS ${peakRssMiB.toFixed(1)} MiB, ${held} operations queued at the end`);
    return { operations: n, peakRssMiB, scheduled: held, secondsToFill };
  } finally {
    await stack.close();
  }
}

/** One recorded run of the program: what it measured and under which conditions. */
interface SavedRun {
  readonly date: string;
  readonly machine: string;
  readonly maxScheduled: number;
  readonly holdMs: number;
  readonly runs: number;
  /** The build measured, when not this one. */
  readonly cli?: string;
  readonly results: readonly Measured[];
}

function render(run: SavedRun): string {
  const { results, maxScheduled, holdMs, runs } = run;
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const small = mean(results.filter((r) => r.operations === maxScheduled).map((r) => r.peakRssMiB));
  const largeRuns = results.filter((r) => r.operations !== maxScheduled);
  const large = mean(largeRuns.map((r) => r.peakRssMiB));
  const diff = large - small;
  const rows = results.map((r) => `| ${r.operations} | ${r.peakRssMiB.toFixed(1)} | ${r.scheduled} | ${r.secondsToFill.toFixed(1)} |`);
  return [
    SECTION,
    '',
    `Command: \`npm run build && node dist/bench/relist-memory.js --runs ${runs} --record\` (${run.date}, ${run.machine}${run.cli ? `; build ${run.cli}` : ''}; figures in bench/results/relist-memory/run.json).`,
    `One \`opstream run\` taking over every range (fresh leases at \`now\`: only relists find the operations) with \`pipeline.maxScheduled\` ${maxScheduled}, the operations Create/Accepted over ${SUBSCRIPTIONS} subscriptions, and Clusters Service installing for an hour, so none ends (the state after an outage); periodic relists every 5 s; peak RSS (VmHWM) once the queue held what fits and ${holdMs / 1000} s more. One row per run and size, each on a fresh stack.`,
    '',
    '| active operations | peak RSS MiB | queued at the end | s until the queue held what fits |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Mean peak RSS: ${small.toFixed(1)} MiB with ${maxScheduled} active operations, ${large.toFixed(1)} MiB with ${largeRuns[0]?.operations ?? '?'} (${Math.abs(diff).toFixed(1)} MiB ${diff >= 0 ? 'more' : 'less'}; the bound is 60 MiB more). ` +
      `With ${largeRuns[0]?.operations ?? '?'}, each relist holds one page (100 operations) while it waits for room, and the periodic relists join it; with ${maxScheduled}, every periodic relist reads the ${maxScheduled} again and offers each (which makes a parked operation due at once), so that instance works more: likely why it peaks higher (not measured apart). ` +
      'Before the change a relist collected both of its queries over the whole container and offered every operation past the bound: against the emulator (whose query paging re-reads the container for each page), the old build had not offered one of 20,000 after 15 minutes (`--cli` with the previous build).',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const opts = benchCommand(
    'relist-memory',
    'Peak memory of one opstream instance that takes over ranges full of active operations, its queue bounded',
  )
    .option('--operations <n>', 'active operations of the large size (the small one is --max-scheduled)', wholeNumber, 20_000)
    .option('--max-scheduled <n>', "the instance's pipeline.maxScheduled, and the small size", wholeNumber, 500)
    .option('--hold-ms <ms>', 'how long the instance runs on once its queue holds what fits', wholeNumber, 30_000)
    .option('--runs <n>', 'both sizes this many times', wholeNumber, 1)
    .option('--cli <main.js>', "the opstream CLI to measure, e.g. another build's dist/src/cli/main.js (default: this build's)")
    .option('--record', 'write the section of bench/results/relist-memory.md and the figures to bench/results/relist-memory/run.json')
    .option(
      '--render <file>',
      'run nothing: the section from a saved run (bench/results/relist-memory/run.json), with --record into RESULTS.md',
    )
    .parse()
    .opts<{ operations: number; maxScheduled: number; holdMs: number; runs: number; cli?: string; record?: true; render?: string }>();
  let run: SavedRun;
  if (opts.render) {
    run = JSON.parse(readFileSync(opts.render, 'utf8')) as SavedRun;
  } else {
    const { operations, maxScheduled, holdMs, runs } = opts;
    const cli = opts.cli ?? CLI;
    const results: Measured[] = [];
    for (let r = 1; r <= runs; r++) {
      for (const n of [maxScheduled, operations]) {
        log(`run ${r}: ${n} active operations, maxScheduled ${maxScheduled}`);
        results.push(await measure(n, maxScheduled, holdMs, cli));
      }
    }
    const machine = `${cpus().length} cores, Node ${process.version}, load ${loadavg()[0]?.toFixed(1)} at the end`;
    run = { date: new Date().toISOString().slice(0, 10), machine, maxScheduled, holdMs, runs, ...(cli === CLI ? {} : { cli }), results };
    if (opts.record) writeRunData(RUN_FILE, run);
  }
  const section = render(run);
  process.stdout.write(`${section}\n`);
  if (opts.record) recordSection(RESULTS, SECTION, section, AFTER);
}

main().catch((err: unknown) => {
  process.stderr.write(`relist-memory: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

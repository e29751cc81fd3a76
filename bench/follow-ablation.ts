/**
 * What each mechanism of the status follow pays, measured side by side: the scripted workload
 * (bench/harness/scripted-phase.ts) on opstream alone, once per variant, each on a fresh stack
 * (emulator process, CS simulator, ARM receiver), rounds interleaved so drift hits every variant:
 *   all        the defaults: learned first check, batched cluster reads with riders, the shared tick
 *   no-tick    follow.batchTickMs=0 (cluster checks wake when due, not on whole seconds)
 *   no-batch   follow.batchWindowMs=0 (one status call per read, nothing rides along)
 *   neither    both off
 * The learned first check has no off switch, so every variant has it.
 *
 *   npm run build && node dist/bench/follow-ablation.js [--rounds N] [--record]
 *
 * `--record` writes the "Status follow: what each mechanism pays" section of bench/results/follow-ablation.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resultsPath } from './harness/results-section';
import { runScripted, type ScriptedResult } from './harness/scripted-phase';
import { startStack } from './harness/stack';
import { opstreamSystem } from './harness/system-under-test';
import { benchCommand, progressLog, wholeNumber } from './harness/cli';

const RESULTS = resultsPath('follow-ablation');
const BEGIN = '<!-- follow-ablation:begin (written by `node dist/bench/follow-ablation.js --record`; do not edit by hand) -->';
const END = '<!-- follow-ablation:end -->';

const VARIANTS: ReadonlyArray<{ name: string; env: Record<string, string> }> = [
  { name: 'all', env: {} },
  { name: 'no-tick', env: { OPSTREAM_FOLLOW_BATCH_TICK_MS: '0' } },
  { name: 'no-batch', env: { OPSTREAM_FOLLOW_BATCH_WINDOW_MS: '0' } },
  { name: 'neither', env: { OPSTREAM_FOLLOW_BATCH_TICK_MS: '0', OPSTREAM_FOLLOW_BATCH_WINDOW_MS: '0' } },
];

/** The scripted workload at the recorded CS durations, with fewer clusters than the recorded run so that it can be repeated per variant. */
const WORKLOAD = {
  subscriptions: 4,
  clustersPerSubscription: 2,
  durationScale: 1,
  idleMs: 1_000,
  terminalTimeoutMs: 300_000,
  warmUp: true,
  maxThinkMs: 1_000,
  seed: 7,
};

const log = progressLog('follow-ablation');

async function runVariant(variant: (typeof VARIANTS)[number], round: number): Promise<ScriptedResult> {
  const stack = await startStack(`${variant.name} #${round}`);
  try {
    return await runScripted(stack, opstreamSystem(variant.env), {
      ...WORKLOAD,
      database: `ablation-${variant.name}-${round}-${Date.now().toString(36)}`,
    });
  } finally {
    await stack.close();
  }
}

const ms = (x: number): string => (Number.isFinite(x) ? `${Math.round(x)}` : '—');
const list = (xs: number[], f: (x: number) => string): string => xs.map(f).join(' / ');

async function main(): Promise<void> {
  const opts = benchCommand(
    'follow-ablation',
    'What each mechanism of the status follow pays: the scripted workload on opstream once per variant (all, no-tick, no-batch, neither)',
  )
    .option('--rounds <n>', 'rounds, each running every variant once (interleaved: drift hits every variant)', wholeNumber, 2)
    .option('--record', 'write the "Status follow: what each mechanism pays" section of bench/results/follow-ablation.md')
    .parse()
    .opts<{ rounds: number; record?: true }>();
  const { rounds } = opts;
  const started = Date.now();
  const load: number[] = [];
  const results = new Map<string, ScriptedResult[]>(VARIANTS.map((v) => [v.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const variant of VARIANTS) {
      load.push(loadavg()[0]);
      log(`round ${round}: ${variant.name}`);
      const r = await runVariant(variant, round);
      results.get(variant.name)!.push(r);
      log(
        `  ${r.operations} operations, ${r.csCallsPerOp.toFixed(2)} CS calls/op, completion lag p50 ${ms(r.completionLag.p50)} ms p99 ${ms(r.completionLag.p99)} ms`,
      );
    }
  }
  const rows = VARIANTS.map((v) => {
    const rs = results.get(v.name)!;
    const setting =
      Object.entries(v.env)
        .map(([k, val]) => `${k}=${val}`)
        .join(', ') || 'defaults';
    return `| ${v.name} | ${setting} | ${list(
      rs.map((r) => r.operations),
      String,
    )} | ${list(
      rs.map((r) => r.csCallsPerOp),
      (x) => x.toFixed(2),
    )} | ${list(
      rs.map((r) => r.completionLag.p50),
      ms,
    )} | ${list(
      rs.map((r) => r.completionLag.p99),
      ms,
    )} | ${list(
      rs.map((r) => r.endToEnd.p50),
      ms,
    )} |`;
  });
  const section = [
    BEGIN,
    '## Status follow: what each mechanism pays',
    '',
    `Command: \`npm run build && node dist/bench/follow-ablation.js --rounds ${rounds} --record\` (${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, Node ${process.version}, 1-minute load average ${Math.min(...load).toFixed(2)}–${Math.max(...load).toFixed(2)}); ${Math.round((Date.now() - started) / 1000)} s.`,
    `The scripted workload of "opstream vs the polling baseline" (${WORKLOAD.subscriptions} subscriptions × ${WORKLOAD.clustersPerSubscription} clusters, each through create, node pool create/update/delete, update, delete; CS durations drawn as recorded × ${WORKLOAD.durationScale}) on opstream alone, once per variant and round, each on a fresh stack, rounds interleaved. Figures per round; CS calls per operation counts every call (dispatch included) from the simulator's log. The learned first check has no off switch and is in every variant.`,
    '',
    '| variant | settings | operations | CS calls per operation | completion lag p50, ms | completion lag p99, ms | end to end p50, ms |',
    '|---|---|---|---|---|---|---|',
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
  process.stdout.write(`${section}\n`, () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`follow-ablation: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

/**
 * The chaos suite (`npm run chaos`; issue 11, "The chaos suite"): real `opstream run` processes,
 * the real SDKs and the local stand-ins on loopback, under instance kills, Cosmos faults, a live
 * split and an emulator restart, Clusters Service faults and outage, an ARM outage, malformed
 * documents and a stuck subscription lock. Each scenario prints its figures and a verdict; the
 * process exits 1 if any verdict is FAIL (2 if the harness itself failed).
 *
 * Options: `npm run chaos -- --help` (--quick is what CI runs, through test/e2e/chaos-quick.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { Child } from '../harness/child-process';
import { benchCommand } from '../harness/cli';
import { FULL, QUICK } from './profile';
import { machine, printScenario, record, writeJson, type ChaosSummary } from './report';
import { runChaos } from './run';
import { HOSTILE_FULL, HOSTILE_QUICK } from './hostile/profile';
import { printHostile, recordHostile, type HostileSummary } from './hostile/report';
import { runHostile } from './hostile/run';

interface Args {
  readonly quick: boolean;
  readonly hostile: boolean;
  readonly record: boolean;
  readonly jsonOut: string | undefined;
}

function parseArgs(): Args {
  const opts = benchCommand(
    'chaos',
    'The chaos suite: real `opstream run` processes and the local stand-ins under faults, a verdict per scenario',
  )
    .option('--quick', 'the quick profile (under 3 minutes; CI runs it through test/e2e/chaos-quick.test.ts)')
    .option('--hostile', 'the hostile-documents scenario instead (bench/chaos/hostile/)')
    .option(
      '--record',
      'replace the "## Chaos" section of bench/results/chaos.md and write bench/results/chaos/run.json (with --hostile: bench/results/chaos-hostile.md and chaos-hostile/run.json)',
    )
    .option('--json-out <file>', 'also write the summary as JSON')
    .addHelpText(
      'after',
      '\nExit code: 0 if every verdict is PASS, 1 if one is FAIL, 2 for a wrong command line or a failure of the harness.',
    )
    .parse()
    .opts<{ quick?: true; hostile?: true; record?: true; jsonOut?: string }>();
  return { quick: opts.quick === true, hostile: opts.hostile === true, record: opts.record === true, jsonOut: opts.jsonOut };
}

async function main(): Promise<number> {
  const args = parseArgs();
  const profile = args.quick ? QUICK : FULL;
  const startedAt = new Date();
  const t0 = Date.now();
  const log = (line: string): void => {
    process.stdout.write(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
  };
  const interrupted = (): void => {
    Child.killAll();
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  // The instances get their settings from the profile only: nothing from the caller's environment.
  const inherited = Object.keys(process.env).filter((k) => k.startsWith('OPSTREAM_'));
  for (const k of inherited) delete process.env[k];
  if (inherited.length) log(`ignored from the environment: ${inherited.join(', ')}`);
  if (args.hostile) return hostile(args, log, startedAt, t0);
  log(`chaos ${profile.mode}: ${profile.operations} operations, ${profile.instances} instances, ${machine()}`);
  const { scenarios: results, diagnostics } = await runChaos(profile, log);
  const summary: ChaosSummary = {
    mode: profile.mode,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - t0,
    machine: machine(),
    profile,
    passed: results.every((r) => r.verdict === 'PASS'),
    scenarios: results,
    diagnostics,
  };
  for (const r of results) printScenario(r, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(
    `\nchaos ${profile.mode}: ${results.filter((r) => r.verdict === 'PASS').length} of ${results.length} scenarios passed in ${(summary.durationMs / 1000).toFixed(0)} s\n`,
  );
  if (args.jsonOut) writeJson(args.jsonOut, summary);
  if (args.record) {
    record(summary);
    log('bench/results/chaos.md and bench/results/chaos/run.json written');
  }
  return summary.passed ? 0 : 1;
}

async function hostile(args: Args, log: (line: string) => void, startedAt: Date, t0: number): Promise<number> {
  const profile = args.quick ? HOSTILE_QUICK : HOSTILE_FULL;
  log(`hostile documents ${profile.mode}: ${profile.hostile} hostile documents, ${profile.instances} instances, ${machine()}`);
  const result = await runHostile(profile, log);
  const summary: HostileSummary = {
    mode: profile.mode,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - t0,
    machine: machine(),
    profile,
    result,
  };
  printHostile(summary, (line) => process.stdout.write(`${line}\n`));
  if (args.jsonOut) writeFileSync(args.jsonOut, `${JSON.stringify(summary, null, 2)}\n`);
  if (args.record) {
    recordHostile(summary);
    log('bench/results/chaos-hostile.md and bench/results/chaos-hostile/run.json written');
  }
  return result.verdict === 'PASS' ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`chaos: harness failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    Child.killAll();
    process.exit(2);
  },
);

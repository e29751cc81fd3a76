/**
 * The chaos suite (`npm run chaos`; issue 11, "The chaos suite"): real `opstream run` processes,
 * the real SDKs and the local stand-ins on loopback, under instance kills, Cosmos faults, a live
 * split and an emulator restart, Clusters Service faults and outage, an ARM outage, malformed
 * documents and a stuck subscription lock. Each scenario prints its figures and a verdict; the
 * process exits 1 if any verdict is FAIL (2 if the harness itself failed).
 *
 * Flags: --quick (under 3 minutes; CI runs it through test/e2e/chaos-quick.test.ts), --json-out FILE
 * (the summary as JSON), --record (replace the "## Chaos" section of bench/RESULTS.md and write
 * bench/chaos-results.json), --hostile (the hostile-documents scenario instead: bench/chaos/hostile/;
 * with --record its own section of RESULTS.md and bench/chaos-hostile-results.json).
 */
import { writeFileSync } from 'node:fs';
import { Child } from '../harness/child-process';
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

function parseArgs(argv: readonly string[]): Args {
  const known = new Set(['--quick', '--hostile', '--record', '--json-out']);
  for (const [i, a] of argv.entries()) {
    if (a.startsWith('--') && !known.has(a)) throw new Error(`unknown flag ${a}; flags: --quick, --hostile, --record, --json-out FILE`);
    if (!a.startsWith('--') && argv[i - 1] !== '--json-out') throw new Error(`unexpected argument ${a}`);
  }
  const at = argv.indexOf('--json-out');
  const jsonOut = at >= 0 ? argv[at + 1] : undefined;
  if (at >= 0 && (!jsonOut || jsonOut.startsWith('--'))) throw new Error('--json-out needs a file name');
  return { quick: argv.includes('--quick'), hostile: argv.includes('--hostile'), record: argv.includes('--record'), jsonOut };
}

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`chaos: ${(err as Error).message}\n`);
    return 2;
  }
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
    log('bench/RESULTS.md (## Chaos) and bench/chaos-results.json written');
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
    log('bench/RESULTS.md (## Chaos: hostile documents) and bench/chaos-hostile-results.json written');
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

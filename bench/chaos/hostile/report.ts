/**
 * Output of a hostile-documents run: figures, the table of kinds and the verdict on stdout; with
 * `--record`, the "## Chaos: hostile documents" section of bench/results/chaos-hostile.md and
 * bench/results/chaos-hostile/run.json.
 */
import { recordSection, resultsPath, writeRunData } from '../../harness/results-section';
import { figureLines } from '../report';
import type { HostileResult } from './figures';
import type { HostileProfile } from './profile';

export interface HostileSummary {
  readonly mode: HostileProfile['mode'];
  readonly startedAt: string;
  readonly durationMs: number;
  readonly machine: string;
  readonly profile: HostileProfile;
  readonly result: HostileResult;
}

const HEADING = '## Chaos: hostile documents';
const RESULTS = resultsPath('chaos-hostile');
const RESULTS_JSON = resultsPath('chaos-hostile', 'run.json');

function kindRows(result: HostileResult): string[] {
  return result.byKind.map(
    (k) =>
      `| ${String(k.kind)} | ${String(k.expect)} | ${String(k.documents)} | ${String(k.accounted)} | ${String(k.posts)} | ${String(k.reason).replace(/\|/g, '\\|').slice(0, 160)} |`,
  );
}

export function printHostile(summary: HostileSummary, write: (line: string) => void): void {
  write(`\n== hostile documents (${summary.mode})`);
  for (const line of figureLines(summary.result.figures)) write(`   ${line}`);
  write('   | kind | expected | documents | accounted | POSTs | reason |');
  for (const row of kindRows(summary.result)) write(`   ${row}`);
  for (const f of summary.result.failures) write(`   ✗ ${f}`);
  write(`VERDICT hostile-documents: ${summary.result.verdict}`);
}

export function recordHostile(summary: HostileSummary): void {
  const p = summary.profile;
  const r = summary.result;
  const section = [
    HEADING,
    '',
    `Command: \`npm run chaos -- --hostile${p.mode === 'quick' ? ' --quick' : ''} --record\` (${summary.startedAt.slice(0, 10)}, ${summary.machine}); ${(summary.durationMs / 1000).toFixed(0)} s. Verdict: **${r.verdict}**.`,
    `${p.instances} \`opstream run\` processes share the leases of ${p.partitions} ranges. The same normal workload (cluster lifecycles through the frontend, ${p.ratePerSecond} operations a second for ${p.roundMs / 1000} s) runs twice after a ${p.warmUpMs / 1000} s warm-up that is not measured: clean, then with ${p.hostile} hostile documents written among it over the first ${Math.round(p.hostileSpreadShare * 100)} % of the round (notification deadline ${p.notificationDeadlineMs / 1000} s).`,
    "Reaction is from the frontend's acknowledged write to Clusters Service receiving the operation's change call (the POST, PATCH or DELETE), for every step of the lifecycles; every outcome is read from outside opstream (the hostile endpoints' counts, the ARM receiver, the Operations and DeadLetters containers). Code: bench/chaos/hostile/.",
    '',
    '| kind | expected | documents | accounted for | POSTs received (min–max) | reason recorded |',
    '|---|---|---|---|---|---|',
    ...kindRows(r),
    '',
    '```',
    ...figureLines(r.figures),
    ...r.failures.map((f) => `FAILED: ${f}`),
    '```',
    '',
  ].join('\n');
  recordSection(RESULTS, HEADING, section, '## Chaos');
  writeRunData(RESULTS_JSON, summary);
}

/**
 * Output of a chaos run: the figures and verdict of each scenario on stdout, a JSON summary
 * (`--json-out FILE`; with `--record` also bench/results/chaos/run.json), and with `--record` the
 * "## Chaos" section of bench/results/chaos.md, between its markers, replaced (or appended).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, hostname, loadavg } from 'node:os';
import { resultsPath, writeRunData } from '../harness/results-section';
import type { ChaosProfile } from './profile';
import type { Diagnostics } from './run';
import type { ScenarioResult } from './scenarios';

export interface ChaosSummary {
  readonly mode: ChaosProfile['mode'];
  readonly startedAt: string;
  readonly durationMs: number;
  readonly machine: string;
  readonly profile: ChaosProfile;
  readonly passed: boolean;
  readonly scenarios: readonly ScenarioResult[];
  readonly diagnostics: Diagnostics;
}

const BEGIN = '<!-- chaos:begin (written by `npm run chaos -- --record`; do not edit by hand) -->';
const END = '<!-- chaos:end -->';
const RESULTS = resultsPath('chaos');
const RESULTS_JSON = resultsPath('chaos', 'run.json');

export function machine(): string {
  return `${hostname()}, ${cpus().length} cores, Node ${process.version}, load average ${loadavg()[0].toFixed(2)}`;
}

function show(value: unknown): string {
  if (typeof value === 'number')
    return Number.isInteger(value) || !Number.isFinite(value)
      ? String(value)
      : Math.abs(value) >= 1
        ? value.toFixed(1)
        : value.toPrecision(3);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map(show).join('; ');
  return JSON.stringify(value);
}

/** Figures of one scenario as "name: value" lines (nested objects flattened one level). */
export function figureLines(figures: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const [k, v] of Object.entries(figures)) {
    if (k === 'documents' && Array.isArray(v)) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k2, v2] of Object.entries(v)) lines.push(`${k}.${k2}: ${show(v2)}`);
    } else lines.push(`${k}: ${show(v)}`);
  }
  return lines;
}

export function printScenario(s: ScenarioResult, write: (line: string) => void): void {
  write(`\n== ${s.name}: ${s.title}`);
  for (const line of figureLines(s.figures)) write(`   ${line}`);
  const docs = s.figures.documents;
  if (Array.isArray(docs)) {
    for (const d of docs as Array<Record<string, unknown>>) {
      write(
        `   [${d.ok ? 'ok' : 'NOT OK'}] ${String(d.kind)} (${String(d.bytes)} B, write ${String(d.writeStatus)}): ${String(d.outcome)}; ${String(d.reason)} ${String(d.error)}`,
      );
    }
  }
  for (const f of s.failures) write(`   ✗ ${f}`);
  write(`VERDICT ${s.name}: ${s.verdict}`);
}

export function writeJson(file: string, summary: ChaosSummary): void {
  writeRunData(file, summary);
}

function section(summary: ChaosSummary): string {
  const rows = summary.scenarios.map(
    (s) =>
      `| ${s.name} | ${s.title} | **${s.verdict}** | ${s.failures.length ? s.failures.map((f) => f.replace(/\|/g, '\\|')).join('<br>') : '—'} |`,
  );
  const load = summary.scenarios.find((s) => s.name === 'load')?.figures ?? {};
  const t = (load.takeover ?? {}) as Record<string, unknown>;
  return [
    BEGIN,
    '## Chaos',
    '',
    `Command: \`npm run chaos -- ${summary.mode === 'quick' ? '--quick ' : ''}--record\` (${summary.startedAt.slice(0, 10)}, ${summary.machine}); ${(summary.durationMs / 1000).toFixed(0)} s.`,
    `${summary.profile.instances} \`opstream run\` processes sharing the leases (expiry ${summary.profile.lease.expirationMs} ms, acquire every ${summary.profile.lease.acquireMs} ms), one SIGKILLed every ${summary.profile.killEveryMs / 1000} s and restarted, against the Cosmos emulator process (${summary.profile.partitions} partitions, journal on disk), the CS simulator and an ARM notification receiver, all on loopback.`,
    'Every figure is read from outside opstream: the CS simulator admin API, the ARM receiver, and the Cosmos containers through the SDK. What a scenario checks and how: bench/chaos/ (scenarios.ts, figures.ts).',
    '',
    `Overall: **${summary.passed ? 'PASS' : 'FAIL'}**. Lease takeover after a kill: p50 ${show(t.p50Ms)} ms, p99 ${show(t.p99Ms)} ms, max ${show(t.maxMs)} ms (target ${show(t.targetMs)} ms, ${show(t.measured)} measured). Peak RSS per instance (MiB): ${show(load.peakRssMiB)}.`,
    '',
    '| scenario | what | verdict | missed targets |',
    '|---|---|---|---|',
    ...rows,
    '',
    'Figures per scenario (bench/results/chaos/run.json has all of them):',
    '',
    '```',
    ...summary.scenarios.flatMap((s) => [`${s.name}:`, ...figureLines(s.figures).map((l) => `  ${l}`)]),
    '```',
    END,
  ].join('\n');
}

/** Replaces the Chaos section of bench/results/chaos.md (between the markers) and writes bench/results/chaos/run.json. */
export function record(summary: ChaosSummary): void {
  recordInto(RESULTS, RESULTS_JSON, summary);
}

function recordInto(resultsFile: string, jsonFile: string, summary: ChaosSummary): void {
  const current = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
  const start = current.indexOf(BEGIN.slice(0, 20));
  const end = current.indexOf(END);
  const text = section(summary);
  const next =
    start >= 0 && end > start ? current.slice(0, start) + text + current.slice(end + END.length) : `${current.trimEnd()}\n\n${text}\n`;
  writeFileSync(resultsFile, next);
  writeJson(jsonFile, summary);
}

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** bench/results/ of the repository (this file runs as dist/bench/harness/results-section.js). */
const RESULTS_DIR = join(__dirname, '../../../bench/results');

/**
 * Where a benchmark's results go: its page, `bench/results/<benchmark>.md`, or with `file` the run data
 * that page is rendered from, `bench/results/<benchmark>/<file>`.
 */
export function resultsPath(benchmark: string, file?: string): string {
  return file === undefined ? join(RESULTS_DIR, `${benchmark}.md`) : join(RESULTS_DIR, benchmark, file);
}

/**
 * Writes run data as JSON, compactly: an object or array on one line when it fits in 140 characters or
 * is nested more than three levels deep, else one member a line. Only the layout differs from
 * `JSON.stringify(value, null, 2)`; it parses to the same value, so a page renders the same from it.
 */
export function writeRunData(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${compactJson(JSON.parse(JSON.stringify(value)) as unknown, 3, '')}\n`);
}

/** `value` as JSON (already plain: parsed from JSON), up to `depth` levels one member a line. */
function compactJson(value: unknown, depth: number, indent: string): string {
  const flat = JSON.stringify(value);
  if (depth <= 0 || value === null || typeof value !== 'object' || indent.length + flat.length <= 140) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v: unknown) => inner + compactJson(v, depth - 1, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${compactJson(v, depth - 1, inner)}`).join(',\n')}\n${indent}}`;
}

/**
 * Writes one `## ` section of a results page (bench/results/<benchmark>.md; a missing page is created): replaces the section headed `heading` (up to the next
 * `## `), or, when the file has none yet, puts it after the section headed `after` (else at the end).
 */
export function recordSection(file: string, heading: string, section: string, after: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let start = current.indexOf(heading);
  let end: number;
  if (start >= 0) {
    end = sectionEnd(current, start + heading.length);
  } else {
    const anchor = current.indexOf(after);
    start = end = anchor < 0 ? current.length : sectionEnd(current, anchor + 1);
  }
  const rest = current.slice(end);
  writeFileSync(
    file,
    rest === '' ? `${current.slice(0, start)}${section}`.trimEnd() + '\n' : `${current.slice(0, start)}${section}\n${rest}`,
  );
}

/**
 * Where the section that goes on at `from` ends: at the next `## ` heading, or at the begin marker
 * (`<!-- name:begin … -->`) of a section that a program writes between markers: the section must
 * not swallow that marker, nor a new one land between the marker and its heading.
 */
export function sectionEnd(text: string, from: number): number {
  const next = /\n(## |<!-- [\w-]+:begin)/g;
  next.lastIndex = from;
  const found = next.exec(text);
  return found ? found.index + 1 : text.length;
}

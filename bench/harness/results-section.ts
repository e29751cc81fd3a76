import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Writes one `## ` section of a results file: replaces the section headed `heading` (up to the next
 * `## `), or, when the file has none yet, puts it after the section headed `after` (else at the end).
 */
export function recordSection(file: string, heading: string, section: string, after: string): void {
  const current = readFileSync(file, 'utf8');
  let start = current.indexOf(heading);
  let end: number;
  if (start >= 0) {
    const next = current.indexOf('\n## ', start + heading.length);
    end = next < 0 ? current.length : next + 1;
  } else {
    const anchor = current.indexOf(after);
    const next = anchor < 0 ? -1 : current.indexOf('\n## ', anchor + 1);
    start = end = next < 0 ? current.length : next + 1;
  }
  writeFileSync(file, `${current.slice(0, start)}${section}\n${current.slice(end)}`);
}

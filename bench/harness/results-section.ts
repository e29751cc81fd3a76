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
    end = sectionEnd(current, start + heading.length);
  } else {
    const anchor = current.indexOf(after);
    start = end = anchor < 0 ? current.length : sectionEnd(current, anchor + 1);
  }
  writeFileSync(file, `${current.slice(0, start)}${section}\n${current.slice(end)}`);
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

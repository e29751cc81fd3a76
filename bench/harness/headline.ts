/**
 * The README's headline table is a copy of the one in bench/RESULTS.md ("## Headline"), which the
 * benchmarks that own a row rewrite: figures are recorded in one place and shown in two.
 * test/unit/bench/headline.test.ts fails when the copies differ; `node dist/bench/headline.js`
 * copies it again.
 */
const BEGIN = /<!-- headline:begin[^>]*-->\n/;
const END = '<!-- headline:end -->';

function bounds(text: string, file: string): { start: number; end: number } {
  const begin = BEGIN.exec(text);
  const end = text.indexOf(END);
  if (!begin || end < begin.index) throw new Error(`${file} has no <!-- headline:begin --> … ${END} block`);
  return { start: begin.index + begin[0].length, end };
}

/** The table between the markers (`file` names it in the error when they are missing). */
export function headlineTable(text: string, file: string): string {
  const { start, end } = bounds(text, file);
  return text.slice(start, end);
}

/** `text` with the table between its markers replaced. */
export function withHeadlineTable(text: string, file: string, table: string): string {
  const { start, end } = bounds(text, file);
  return `${text.slice(0, start)}${table}${text.slice(end)}`;
}

/** `table` with the row whose first cell starts with `label` replaced by `row`. */
export function withRow(table: string, label: string, row: string): string {
  const lines = table.split('\n');
  const i = lines.findIndex((l) => l.startsWith(`| ${label}`));
  if (i < 0) throw new Error(`the headline table has no row "${label}"`);
  lines[i] = row;
  return lines.join('\n');
}

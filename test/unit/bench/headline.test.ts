import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { headlineTable, withHeadlineTable, withRow } from '../../../bench/harness/headline';

const ROOT = join(__dirname, '../../..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

describe("the README's headline table", () => {
  it('is the one bench/RESULTS.md records (copy it again with `node dist/bench/headline.js`)', () => {
    const recorded = headlineTable(read('bench/RESULTS.md'), 'bench/RESULTS.md');
    expect(recorded).toMatch(/^\| figure \| polling baseline \| opstream \|\n/);
    expect(recorded).toContain('| Cosmos requests per idle second');
    expect(headlineTable(read('README.md'), 'README.md')).toBe(recorded);
  });

  it('is replaced between its markers, a row by its label, and a file without markers is named', () => {
    const text = 'intro\n<!-- headline:begin (x) -->\n| figure | a |\n| b | 1 |\n<!-- headline:end -->\nafter\n';
    const table = withRow(headlineTable(text, 'T.md'), 'b', '| b | 2 |');
    expect(withHeadlineTable(text, 'T.md', table)).toBe(
      'intro\n<!-- headline:begin (x) -->\n| figure | a |\n| b | 2 |\n<!-- headline:end -->\nafter\n',
    );
    expect(() => withRow(table, 'c', '| c |')).toThrow('the headline table has no row "c"');
    expect(() => headlineTable('no markers', 'T.md')).toThrow('T.md has no <!-- headline:begin --> … <!-- headline:end --> block');
  });
});

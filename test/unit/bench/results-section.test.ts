import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordSection, writeRunData } from '../../../bench/harness/results-section';

/** A results file as bench/RESULTS.md lays it out: `## ` sections, some of them written between markers. */
const RESULTS = [
  '# Benchmark results',
  '',
  '## Slow tap clients',
  '',
  'slow tap, old',
  '',
  '<!-- chaos:begin (written by the chaos suite) -->',
  '## Chaos',
  '',
  'chaos figures',
  '<!-- chaos:end -->',
  '',
  '## Chaos: hostile documents',
  '',
  'hostile, old',
  '',
  '<!-- shutdown:begin (written by shutdown.js) -->',
  '## Shutdown',
  '',
  'shutdown figures',
  '<!-- shutdown:end -->',
  '',
].join('\n');

describe('recordSection (bench/harness/results-section.ts)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'opstream-results-section-'));
    file = join(dir, 'RESULTS.md');
    writeFileSync(file, RESULTS);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("replaces a section up to the next section's begin marker, which it leaves in place", () => {
    recordSection(file, '## Slow tap clients', '## Slow tap clients\n\nslow tap, new\n', '# Benchmark results');
    recordSection(file, '## Chaos: hostile documents', '## Chaos: hostile documents\n\nhostile, new\n', '## Chaos');
    expect(readFileSync(file, 'utf8')).toBe(RESULTS.replace('slow tap, old', 'slow tap, new').replace('hostile, old', 'hostile, new'));
  });

  it('puts a new section after the one it follows, before the next marker, not inside the marked section', () => {
    const without = RESULTS.replace('## Chaos: hostile documents\n\nhostile, old\n\n', '');
    writeFileSync(file, without);
    recordSection(file, '## Chaos: hostile documents', '## Chaos: hostile documents\n\nhostile, new\n', '## Chaos');
    const text = readFileSync(file, 'utf8');
    expect(text.indexOf('hostile, new')).toBeGreaterThan(text.indexOf('<!-- chaos:end -->'));
    expect(text.indexOf('hostile, new')).toBeLessThan(text.indexOf('<!-- shutdown:begin'));
  });

  it('creates a missing page, and a section last on its page ends the file with one newline', () => {
    const page = join(dir, 'page.md');
    recordSection(page, '## Slow tap clients', '## Slow tap clients\n\nslow tap, new\n', '# Benchmark results');
    recordSection(page, '## Slow tap clients', '## Slow tap clients\n\nslow tap, newer\n', '# Benchmark results');
    expect(readFileSync(page, 'utf8')).toBe('## Slow tap clients\n\nslow tap, newer\n');
  });
});

describe('writeRunData (bench/harness/results-section.ts)', () => {
  it('writes run data compactly, parsing back to what JSON.stringify keeps', () => {
    const dir = mkdtempSync(join(tmpdir(), 'opstream-run-data-'));
    try {
      const file = join(dir, 'sub', 'run.json');
      const run = {
        date: new Date('2026-12-05T00:00:00Z'),
        gone: undefined,
        levels: Array.from({ length: 30 }, (_, i) => ({ level: i, samples: [i, i * 2, NaN], deep: { a: { b: { c: i } } } })),
      };
      writeRunData(file, run);
      const text = readFileSync(file, 'utf8');
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(run)));
      expect(text.split('\n').length).toBeLessThan(JSON.stringify(run, null, 2).split('\n').length / 5);
      expect(text.endsWith('}\n')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

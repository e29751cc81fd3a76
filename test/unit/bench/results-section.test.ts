import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordSection } from '../../../bench/harness/results-section';

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
});

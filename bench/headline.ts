/**
 * Copies the headline table of bench/RESULTS.md ("## Headline") into the README.
 *
 *   npm run build && node dist/bench/headline.js
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchCommand } from './harness/cli';
import { headlineTable, withHeadlineTable } from './harness/headline';

benchCommand('headline', "Copies bench/RESULTS.md's headline table into README.md").parse();
const ROOT = join(__dirname, '../..');
const results = readFileSync(join(ROOT, 'bench/RESULTS.md'), 'utf8');
const readmeFile = join(ROOT, 'README.md');
const readme = readFileSync(readmeFile, 'utf8');
writeFileSync(readmeFile, withHeadlineTable(readme, 'README.md', headlineTable(results, 'bench/RESULTS.md')));
console.log('README.md: headline table copied from bench/RESULTS.md');

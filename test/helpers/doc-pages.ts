import { readdirSync } from 'fs';
import { join } from 'path';

/** The repository's root, from test/helpers. */
export const REPO_ROOT = join(__dirname, '..', '..');

/** The pages the docs tests read: the README and every page of docs/, as repository paths. */
export const DOC_PAGES: readonly string[] = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

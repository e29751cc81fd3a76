import { readFileSync } from 'fs';
import { join } from 'path';
import { createMetrics } from '../../../src/ops/metrics';
import { STREAMS } from '../../../src/ops/stream-names';
import { SETTINGS } from '../../../src/config/settings';
import {
  BEGIN,
  END,
  SETTINGS_PAGE,
  WHY_NOT_THE_LIBRARY_DEFAULT,
  libraryDifferences,
  settingsTable,
  withSettingsTable,
} from '../../../src/config/settings-doc';

const ROOT = join(__dirname, '..', '..', '..');
const CONFIGURATION = readFileSync(join(ROOT, SETTINGS_PAGE), 'utf8');
const OPERATING = readFileSync(join(ROOT, 'docs', 'operating.md'), 'utf8');

/** The configuration reference and the operating guide stay in sync with the code they document. */
describe('docs: configuration and operating', () => {
  it('docs/configuration.md has the settings table as `npm run docs:settings` generates it', () => {
    expect(CONFIGURATION).toContain(BEGIN);
    expect(CONFIGURATION).toContain(END);
    expect(withSettingsTable(CONFIGURATION)).toBe(CONFIGURATION); // else: npm run docs:settings
  });

  it('the table names every setting with its environment variable and flag', () => {
    const table = settingsTable();
    for (const s of SETTINGS) expect(table).toContain(`| \`${s.key}\` | \`${s.env}\` | \`${s.flag}\` |`);
    expect(table.split('\n')).toHaveLength(SETTINGS.length + 2);
  });

  it('docs/operating.md lists every opstream metric and every stream', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect(OPERATING).toContain(`| \`${name}\` |`);
    for (const stream of STREAMS) expect(OPERATING).toContain(`\`${stream}\``);
  });
});

describe("where opstream's changefeed.* defaults differ from the library's", () => {
  it('lists each difference with its reason, and no reason for a default that no longer differs', () => {
    const listed = libraryDifferences();
    for (const name of Object.keys(WHY_NOT_THE_LIBRARY_DEFAULT)) expect(listed).toContain(`- \`changefeed.${name}\`:`);
    expect(listed.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(Object.keys(WHY_NOT_THE_LIBRARY_DEFAULT).length);
  });
});

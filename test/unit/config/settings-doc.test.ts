import { readFileSync } from 'fs';
import { join } from 'path';
import { createMetrics } from '../../../src/ops/metrics';
import { STREAMS } from '../../../src/ops/stream-names';
import { SETTINGS } from '../../../src/config/settings';
import { BEGIN, END, settingsTable, withSettingsTable } from '../../../src/config/settings-doc';

const README = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

/** The README's "Operating opstream" section stays in sync with the code it documents. */
describe('README: Operating opstream', () => {
  it('has the settings table as `npm run docs:settings` generates it', () => {
    expect(README).toContain(BEGIN);
    expect(README).toContain(END);
    expect(withSettingsTable(README)).toBe(README); // else: npm run docs:settings
  });

  it('the table names every setting with its environment variable and flag', () => {
    const table = settingsTable();
    for (const s of SETTINGS) expect(table).toContain(`| \`${s.key}\` | \`${s.env}\` | \`${s.flag}\` |`);
    expect(table.split('\n')).toHaveLength(SETTINGS.length + 2);
  });

  it('lists every opstream metric and every stream', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect(README).toContain(`| \`${name}\` |`);
    for (const stream of STREAMS) expect(README).toContain(`\`${stream}\``);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS } from '../../../src/changefeed/options';

/** The options table of the package's README, as written: option → default cell. */
function readmeDefaults(): Map<string, string> {
  const readme = readFileSync(join(__dirname, '../../../src/changefeed/README.md'), 'utf8');
  const rows = [...readme.matchAll(/^\| `(\w+)` \| (.+?) \| /gm)];
  return new Map(rows.map(([, option, cell]) => [option, cell.trim()]));
}

/** A cell as a value: `'now'` → now, 5 000 → 5000, `{retries: 3, …}` left as written. */
const plain = (cell: string): string => cell.replace(/[`']/g, '').replace(/(\d) (\d{3})/g, '$1$2');

/** The README's defaults are the library's: a reader of the table gets what the code does. */
describe("src/changefeed/README.md's options table", () => {
  const table = readmeDefaults();

  it.each(Object.entries(DEFAULTS).filter(([, value]) => typeof value !== 'object'))('%s: the README says %p', (option, value) => {
    expect(table.has(option)).toBe(true);
    expect(plain(table.get(option)!)).toBe(String(value));
  });

  it.each(Object.entries(DEFAULTS).filter(([, value]) => typeof value === 'object' && value !== null))(
    '%s: every field the README names has the default value',
    (option, value) => {
      const cell = plain(table.get(option) ?? '');
      for (const [field, fieldValue] of Object.entries(value as Record<string, unknown>)) {
        const written = new RegExp(`${field}: ([\\w.]+)`).exec(cell)?.[1];
        if (written !== undefined) expect(`${field}: ${written}`).toBe(`${field}: ${String(fieldValue)}`);
      }
    },
  );
});

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('generated schema types', () => {
  it('are up to date with schemas/ (run `npm run schemas:types` after editing a schema)', async () => {
    // The generator runs in a child process: prettier (used by json-schema-to-typescript) needs a
    // dynamic import, which jest's module VM does not allow.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', './src/schemas/register-ts.cjs', 'src/schemas/generate.ts', '--stdout'],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(stdout.length).toBeGreaterThan(1000);
    expect(readFileSync(path.join(ROOT, 'src', 'domain', 'types.generated.ts'), 'utf8')).toBe(stdout);
  });
});

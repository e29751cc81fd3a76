import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm ci --omit=dev` on a clone installs no stand-in and none of their libraries: the stand-ins are
 * development dependencies (`file:` links), not workspaces (npm installs every workspace whatever
 * `--omit` says), so the lock file marks them and everything only they need `dev`, which is what
 * `--omit=dev` leaves out.
 */
const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  workspaces: string[];
  devDependencies: Record<string, string>;
  dependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; link?: boolean; resolved?: string; name?: string }>;
};
const STAND_INS = readdirSync(join(ROOT, 'infra'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => `infra/${d.name}`)
  .filter((dir) => lock.packages[dir] !== undefined);

describe('a production install (npm ci --omit=dev)', () => {
  it('finds every stand-in in the lock file', () => {
    expect(STAND_INS.length).toBeGreaterThanOrEqual(8);
  });

  it.each(STAND_INS)('leaves out %s: no workspace, a development dependency only', (dir) => {
    expect(pkg.workspaces).not.toContain(dir);
    const name = lock.packages[dir]?.name ?? '';
    expect(pkg.devDependencies[name]).toBe(`file:${dir}`);
    expect(pkg.dependencies[name]).toBeUndefined();
    expect(lock.packages[dir]?.dev).toBe(true);
  });

  it.each(['node_modules/@zeit/cosmosdb-query', 'node_modules/@babel/traverse'])('leaves out %s, which only a stand-in needs', (path) => {
    expect(lock.packages[path]?.dev).toBe(true);
  });

  it('keeps the product and its library: the change feed package is a workspace the production install holds', () => {
    expect(pkg.workspaces).toContain('src/changefeed');
    expect(lock.packages['src/changefeed']?.dev).toBeUndefined();
  });
});

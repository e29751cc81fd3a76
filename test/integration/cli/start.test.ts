import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { spawnCli } from '../../helpers/cli';

describe('opstream start', () => {
  it('Ctrl-C in the middle of the demo stops everything and exits 0 at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'opstream-start-'));
    const start = spawnCli([
      'start',
      '--data-dir',
      dataDir,
      '--cosmos-port',
      '0',
      '--clusters-service-port',
      '0',
      '--ops-addr',
      '127.0.0.1:0',
      '--demo-subscriptions',
      '1',
      '--demo-clusters',
      '2',
    ]);
    await start.waitForLine((l) => l.startsWith('demo  → '), 30_000, 'the first demo operation');
    const signalled = Date.now();
    start.child.kill('SIGINT');
    const result = await start.exited;
    expect(result.code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(15_000);
    expect(result.stdout).toMatch(/\nSIGINT: stopping\n(.*\n)*stopped\n$/);
  });
});

import { localStartArgs, runCli, spawnCli } from '../../helpers/cli';

describe('opstream start', () => {
  it('Ctrl-C in the middle of the demo stops everything and exits 0 at once', async () => {
    const start = spawnCli(localStartArgs(['--demo-subscriptions', '1', '--demo-clusters', '2']));
    await start.waitForLine((l) => l.startsWith('demo  → '), 30_000, 'the first demo operation');
    const signalled = Date.now();
    start.child.kill('SIGINT');
    const result = await start.exited;
    expect(result.code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(15_000);
    expect(result.stdout).toMatch(/\nSIGINT: stopping\n(.*\n)*stopped\n$/);
  });

  it('prints, paste-ready, the variables the inspection commands need: with them `opstream leases` reads the running stack', async () => {
    const start = spawnCli(localStartArgs());
    try {
      await start.waitForLine((l) => l === 'opstream is running; Ctrl-C stops everything', 60_000, 'the stack to run');
      const lines = start.stdout().split('\n');
      const header = lines.findIndex((l) => l.startsWith('CLI settings '));
      expect(lines[header]).toContain("the key is the local emulator's well-known key, not a secret");
      const exports = lines.slice(header + 1).filter((l) => l.startsWith('export '));
      expect(exports.map((l) => l.split('=')[0])).toEqual([
        'export OPSTREAM_COSMOS_ENDPOINT',
        'export OPSTREAM_COSMOS_KEY',
        'export OPSTREAM_CLUSTERS_SERVICE_URL',
      ]);
      // What a shell makes of them.
      const env = Object.fromEntries(
        exports.map((l) => {
          const [, name, quoted] = /^export (OPSTREAM_[A-Z_]+)='(.*)'$/.exec(l) ?? [];
          return [name, quoted.replace(/'\\''/g, "'")];
        }),
      );
      const leases = await runCli(['leases'], env);
      expect(leases.stderr).toBe('');
      expect(leases.code).toBe(0);
      expect(leases.stdout).toMatch(/LEASE/);
      // Without them it cannot (78: missing settings).
      const none = await runCli(['leases'], {});
      expect(none.code).toBe(78);
    } finally {
      start.child.kill('SIGINT');
      await start.exited;
    }
  });
});

import { runCli, spawnCli } from '../../helpers/cli';

/**
 * `opstream emulator clusters-service`: loopback only unless --allow-remote says otherwise, and its
 * `/_admin` answers only the admin token (given, or random and printed).
 */
describe('opstream emulator clusters-service (CLI)', () => {
  it('prints where /_admin is and its token; admin calls need it', async () => {
    const sim = spawnCli(['emulator', 'clusters-service', '--port', '0', '--admin-token', 'cli-admin-token']);
    try {
      const line = await sim.waitForLine((l) => l.startsWith('admin: '), 20_000, 'the admin line');
      const m = /^admin: (http:\/\/127\.0\.0\.1:\d+)\/_admin\/ with "Authorization: Bearer cli-admin-token"/.exec(line);
      expect(m).not.toBeNull();
      const url = (m as RegExpExecArray)[1];
      expect((await fetch(`${url}/_admin/counters`)).status).toBe(401);
      expect((await fetch(`${url}/_admin/counters`, { headers: { authorization: 'Bearer cli-admin-token' } })).status).toBe(200);
    } finally {
      sim.child.kill('SIGINT');
      await sim.exited;
    }
  });

  it('a random admin token when none is given', async () => {
    const sim = spawnCli(['emulator', 'clusters-service', '--port', '0']);
    try {
      const line = await sim.waitForLine((l) => l.startsWith('admin: '), 20_000, 'the admin line');
      expect(line).toMatch(/with "Authorization: Bearer [0-9a-f]{32}"/);
    } finally {
      sim.child.kill('SIGINT');
      await sim.exited;
    }
  });

  // 192.0.2.1 (TEST-NET-1) is no address of this machine: listening there fails, so nothing is ever exposed.
  it('refuses a --host beyond loopback, naming --allow-remote (exit 2)', async () => {
    const result = await runCli(['emulator', 'clusters-service', '--port', '0', '--host', '192.0.2.1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/listens on loopback only .*got host 192\.0\.2\.1.*--allow-remote/);
  });

  it('with --allow-remote it tries that address (here: one it cannot have)', async () => {
    const result = await runCli(['emulator', 'clusters-service', '--port', '0', '--host', '192.0.2.1', '--allow-remote']);
    expect(result.code).toBe(69);
    expect(result.stderr).toMatch(/cannot start the Clusters Service simulator: .*EADDRNOTAVAIL/);
  });
});

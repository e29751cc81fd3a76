import { runCli } from '../../helpers/cli';

/** `--help` of every operator command: complete (options, examples where useful, exit codes), exit 0. */
describe('opstream --help', () => {
  it('lists every command', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['start', 'run', 'tap', 'leases', 'lag', 'dead-letters', 'config', 'emulator']) {
      expect(result.stdout).toMatch(new RegExp(`\\n  ${command} `));
    }
  });

  it.each([
    [['tap'], ['<stream>', '--status', '--subscription', '--resource', '--json', '--url', '--token', 'Streams:', 'Exit codes:']],
    [['leases'], ['--json', '--cosmos-endpoint', 'OPSTREAM_COSMOS_KEY', '--config', 'Exit codes:']],
    [['lag'], ['--json', '--fail-above', 'Examples:', 'Exit codes:']],
    [
      ['dead-letters', 'list'],
      ['--json', '--partition-key', 'Exit codes:'],
    ],
    [
      ['dead-letters', 'show'],
      ['<id>', '--full', 'Example:', 'Exit codes:'],
    ],
    [
      ['dead-letters', 'replay'],
      ['[id]', '--file', '--all', '--force', '--partition-key', 'Examples:', 'Exit codes:'],
    ],
    [
      ['config', 'check'],
      ['--json', '--for', '--config', 'OPSTREAM_COSMOS_ENDPOINT', '--help-all', 'Exit codes:'],
    ],
    [
      ['config', 'check', '--help-all'],
      ['--json', '--for', '--config', 'OPSTREAM_PIPELINE_CONCURRENCY', 'Exit codes:'],
    ],
  ])('opstream %j --help', async (command, expected) => {
    const result = await runCli([...command, '--help']);
    expect(result.code).toBe(0);
    for (const text of expected) expect(result.stdout).toContain(text);
  });

  it("--help lists the command's own options first, then the common settings; --help-all every setting", async () => {
    const help = await runCli(['run', '--help']);
    expect(help.code).toBe(0);
    const common = help.stdout.indexOf('Common settings');
    expect(common).toBeGreaterThan(help.stdout.indexOf('--help-all'));
    expect(help.stdout.slice(common)).toContain('--cosmos-endpoint');
    expect(help.stdout).not.toContain('--pipeline-concurrency');
    const all = await runCli(['run', '--help-all']);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('--pipeline-concurrency <value>');
    expect(all.stdout).toContain('--no-cosmos-create-containers');
    // A required argument missing does not stand in the way of the help.
    const show = await runCli(['dead-letters', 'show', '--help-all']);
    expect(show).toMatchObject({ code: 0, stdout: expect.stringContaining('--cosmos-operations-container <value>') });
  });

  it('a usage error is one line and the hint to use --help, not the whole help', async () => {
    const option = await runCli(['run', '--pipeline-concurency', '8']);
    expect(option.code).toBe(2);
    expect(option.stderr.trim().split('\n')).toEqual([
      "error: unknown option '--pipeline-concurency'",
      '(Did you mean --pipeline-concurrency?)',
      '(opstream run --help lists its options)',
    ]);
    const emulator = await runCli(['emulator', 'cosmos', '--nope']);
    expect(emulator.code).toBe(2);
    expect(emulator.stderr.trim().split('\n')).toEqual([
      "error: unknown option '--nope'",
      '(opstream emulator cosmos --help lists its options)',
    ]);
  });

  it('an unknown command or option, or a bad argument, is a usage error (exit 2)', async () => {
    const unknown = await runCli(['tapp']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown command 'tapp'");
    const option = await runCli(['leases', '--nope']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("error: unknown option '--nope'");
    const missing = await runCli(['tap']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: missing required argument 'stream'");
    const invalid = await runCli(['tap', 'transitions', '--limit', '0']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("error: option '--limit <n>' argument '0' is invalid. must be a whole number >= 1");
  });

  it('--version prints the version and exits 0', async () => {
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
  });
});

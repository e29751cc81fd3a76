import { spawn, type ChildProcess } from 'child_process';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { CLI, cliEnv } from '../helpers/cli';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { FAST_CS_DURATIONS } from '../helpers/test-config';
import { uniqueName, waitFor } from '../helpers/wait-for';

const ESC = '\x1b[';

/**
 * The terminal of `opstream run`: on a terminal (a pseudo-terminal made by util-linux `script`) its
 * log lines are readable, coloured unless NO_COLOR is set, and its banner plain; elsewhere stderr
 * holds JSON lines only, the banner among them as a record, and stdout nothing.
 */
describe('opstream run on a terminal and elsewhere', () => {
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    cs = await startClustersServiceSimulator({ port: 0, durations: FAST_CS_DURATIONS });
  });

  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    await cs?.close();
    await cosmos?.close();
  });

  function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const base = cliEnv({
      OPSTREAM_LOG_SILENT: '0',
      OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: uniqueName('terminal'),
      OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true',
      OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
      OPSTREAM_OPS_ADDR: '127.0.0.1:0',
    });
    delete base.NO_COLOR;
    delete base.FORCE_COLOR;
    return { ...base, TERM: 'xterm', ...extra };
  }

  /** Starts `opstream run` (on a pseudo-terminal when `tty`) in its own process group; resolves once it says it runs. */
  async function startRun(tty: boolean, extra: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
    const command = tty
      ? spawn('script', ['-qec', `exec ${process.execPath} ${CLI} run`, '/dev/null'], {
          env: env(extra),
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(process.execPath, [CLI, 'run'], { env: env(extra), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(command);
    let stdout = '';
    let stderr = '';
    command.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    command.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    await waitFor(() => / running; ops server http:\/\/127\.0\.0\.1:\d+; Ctrl-C stops/.test(stdout + stderr), {
      timeoutMs: 60_000,
      describe: () => `opstream run to say it runs; stdout: ${stdout.slice(-2000)} stderr: ${stderr.slice(-2000)}`,
    });
    if (command.pid) process.kill(-command.pid, 'SIGKILL');
    return { stdout, stderr };
  }

  it('on a terminal: readable coloured lines and a plain banner, no JSON', async () => {
    const { stdout } = await startRun(true);
    const lines = stdout.split(/\r?\n/).filter((l) => l !== '');
    expect(lines.some((l) => l.startsWith('{'))).toBe(false);
    expect(lines).toContainEqual(expect.stringMatching(/^opstream \S+ running; ops server http:\/\/127\.0\.0\.1:\d+; Ctrl-C stops$/));
    const started = lines.find((l) => l.includes('opstream started'));
    // Grey time, green level, the message, grey fields.
    const e = '\\x1b\\[';
    expect(started).toMatch(
      new RegExp(`^${e}90m\\d\\d:\\d\\d:\\d\\d\\.\\d{3}${e}0m ${e}32minfo ${e}0m opstream started ${e}90m.*instanceName=\\S+`),
    );
  });

  it('on a terminal with NO_COLOR: the same lines without a colour code', async () => {
    const { stdout } = await startRun(true, { NO_COLOR: '1' });
    expect(stdout).not.toContain(ESC);
    expect(stdout).toMatch(/\n\d\d:\d\d:\d\d\.\d{3} info {2}opstream started .*instanceName=\S+/);
  });

  it('elsewhere: JSON lines only on stderr, the banner a record among them (whatever log.level); nothing on stdout', async () => {
    const { stdout, stderr } = await startRun(false, { OPSTREAM_LOG_LEVEL: 'warn' });
    expect(stdout).toBe('');
    const lines = stderr.split('\n').filter((l) => l !== '');
    const records = lines.map((l) => JSON.parse(l) as { level: string; message: string; opsUrl?: string });
    expect(records.find((r) => / running; ops server /.test(r.message))).toMatchObject({
      level: 'info',
      opsUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    expect(stderr).not.toContain(ESC);
  });
});

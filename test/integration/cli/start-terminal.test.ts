import { spawn } from 'child_process';
import { CLI, cliEnv, localStartArgs, runCli } from '../../helpers/cli';

/** A short demo that ends by itself. */
function args(): string[] {
  return localStartArgs(['--demo-subscriptions', '1', '--demo-clusters', '1', '--cs-phase-ms', '50', '--exit-after-demo']);
}

/** What `start` itself prints for a person: its stand-ins' addresses, the demo's steps, its end. */
const PLAIN =
  /^(Cosmos emulator |Clusters Service |Service Bus |ops server |CLI settings {6}|export OPSTREAM_\w+='[^']*'$|opstream is running|demo {2}[→✓] |demo finished: |stopped$| {18}\S)/;

/**
 * `npm start`'s terminal: elsewhere its demo lines go to stdout and its log is JSON on stderr, one
 * object a line and nothing else; on a terminal (a pseudo-terminal made by util-linux `script`) both
 * share it, and every line stays whole: a demo line or a readable log line, never a mix.
 */
describe('opstream start on a terminal and elsewhere', () => {
  it('elsewhere: the demo on stdout, JSON lines only on stderr', async () => {
    const result = await runCli(args(), { OPSTREAM_LOG_SILENT: '0' }, 180_000);
    expect(result.code).toBe(0);
    const out = result.stdout.split('\n').filter((l) => l !== '');
    expect(out.filter((l) => !PLAIN.test(l))).toEqual([]);
    expect(out).toContainEqual(expect.stringMatching(/^demo finished: /));
    const err = result.stderr.split('\n').filter((l) => l !== '');
    expect(err.length).toBeGreaterThan(5);
    for (const line of err) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('on a terminal: every line is whole, a demo line or a readable log line', async () => {
    const env = cliEnv({ OPSTREAM_LOG_SILENT: '0', TERM: 'xterm' });
    delete env.NO_COLOR;
    const command = `exec ${process.execPath} ${CLI} ${args().join(' ')}`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    expect(code).toBe(0);
    const lines = out.split(/\r?\n/).filter((l) => l !== '');
    const logLine = /^\x1b\[90m\d\d:\d\d:\d\d\.\d{3}\x1b\[0m \x1b\[3\dm(error|warn |info |debug)\x1b\[0m \S/; // eslint-disable-line no-control-regex
    expect(lines.filter((l) => !PLAIN.test(l) && !logLine.test(l))).toEqual([]);
    expect(lines.filter((l) => logLine.test(l)).length).toBeGreaterThan(5);
    expect(lines).toContainEqual(expect.stringMatching(/^demo finished: /));
  });
});

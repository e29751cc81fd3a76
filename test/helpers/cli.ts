import { spawn, type ChildProcess } from 'child_process';
import { existsSync, mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { waitFor } from './wait-for';

/**
 * Runs the built CLI (`dist/src/cli/main.js`, produced by `npm test`'s pretest or `npm run build`)
 * as a child process, with a clean environment: no OPSTREAM_* from the caller, only `env`.
 */
export const CLI = join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function cliEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('OPSTREAM_')) out[k] = v;
  return { ...out, OPSTREAM_LOG_SILENT: '1', ...env };
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout has a line for which `match` is true (returns that line). */
  waitForLine(match: (line: string) => boolean, timeoutMs?: number, what?: string): Promise<string>;
  /** The same on stderr (progress and status lines). */
  waitForStderr(match: (line: string) => boolean, timeoutMs?: number, what?: string): Promise<string>;
  /** Resolves with the exit code and output once the process ended. */
  exited: Promise<CliResult>;
}

/**
 * `opstream start` on a fresh data directory with every port chosen by the system (tests run side by
 * side), then `extra` (demo size, phases).
 */
export function localStartArgs(extra: string[] = []): string[] {
  const dataDir = mkdtempSync(join(tmpdir(), 'opstream-start-'));
  return ['start', '--data-dir', dataDir, '--cosmos-port', '0', '--clusters-service-port', '0', '--ops-addr', '127.0.0.1:0', ...extra];
}

export function spawnCli(args: string[], env: Record<string, string> = {}): CliProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does it in pretest)`);
  const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForLine: (match, timeoutMs = 20_000, what = 'a matching line') =>
      waitFor(() => stdout.split('\n').find(match), {
        timeoutMs,
        describe: () => `opstream ${args.join(' ')} to print ${what}; stdout: ${stdout.slice(-2000)} stderr: ${stderr.slice(-2000)}`,
      }),
    waitForStderr: (match, timeoutMs = 20_000, what = 'a matching line') =>
      waitFor(() => stderr.split('\n').find(match), {
        timeoutMs,
        describe: () => `opstream ${args.join(' ')} to print ${what} on stderr: ${stderr.slice(-2000)}`,
      }),
    exited,
  };
}

/** Runs the CLI to completion (killed after `timeoutMs`). */
export async function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<CliResult> {
  const p = spawnCli(args, env);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  try {
    return await p.exited;
  } finally {
    clearTimeout(timer);
  }
}

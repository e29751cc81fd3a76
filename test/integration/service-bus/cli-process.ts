import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The compiled CLI (`npm run build`, which `npm test` runs first). */
const CLI = path.resolve(__dirname, '../../../dist/src/cli/main.js');

export interface Proc {
  child: ChildProcess;
  connectionString: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `opstream emulator service-bus <args>` and waits for its connection string. */
export async function spawnServiceBus(args: string[]): Promise<Proc> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does it in pretest).`);
  const child = spawn(process.execPath, [CLI, 'emulator', 'service-bus', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const connectionString = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the emulator did not start; output:\n${out}`)), 20_000);
    child.stdout!.on('data', () => {
      const m = /^connection string: (\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited (code ${code}) before it was ready; output:\n${out}`));
    });
  });
  return { child, connectionString, exited };
}

import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The compiled CLI (`npm run build`, which `npm test` runs first). */
export const CLI = path.resolve(__dirname, '../../../dist/src/cli/main.js');

export interface EmulatorProcess {
  child: ChildProcess;
  endpoint: string;
  key: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `opstream emulator cosmos …` and waits until it prints its endpoint and key. */
export async function spawnEmulator(args: string[], timeoutMs = 20_000): Promise<EmulatorProcess> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does it in pretest).`);
  const child = spawn(process.execPath, [CLI, 'emulator', 'cosmos', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = await new Promise<{ endpoint: string; key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the emulator did not start within ${timeoutMs} ms; output:\n${out}`)), timeoutMs);
    const check = (): void => {
      const endpoint = /^endpoint: (\S+)$/m.exec(out);
      const key = /^key: (\S+)$/m.exec(out);
      if (endpoint && key) {
        clearTimeout(timer);
        resolve({ endpoint: endpoint[1], key: key[1] });
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the emulator exited (code ${code}, signal ${signal}) before it was ready; output:\n${out}`));
    });
  });
  return { child, ...ready, output: () => out, exited };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { WorkerConfig } from './changefeed-worker';

/** The compiled worker (beside this file in dist/: `npm run build`, which `npm test` runs first). */
const WORKER_JS = join(__filename.endsWith('.js') ? __dirname : join(__dirname, '../../dist/bench/harness'), 'changefeed-worker.js');

export interface WorkerMessage {
  t: 'started' | 'batch' | 'event' | 'stopped' | 'fatal';
  lease?: string;
  ids?: string[];
  type?: string;
  at?: number;
  error?: string;
  instanceName?: string;
}

/** A processor in a child process, collecting what it reports. */
export class Worker {
  readonly messages: WorkerMessage[] = [];
  readonly delivered = new Set<string>();
  readonly proc: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr = '';
  /** Sees every message as it arrives (the benchmark timestamps deliveries this way). */
  onMessage?: (message: WorkerMessage) => void;

  constructor(config: WorkerConfig, script = WORKER_JS) {
    if (!existsSync(script)) throw new Error(`${script} is missing: run npm run build first`);
    this.proc = spawn(process.execPath, [script, JSON.stringify(config)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OPSTREAM_LOG_SILENT: '1' },
    });
    createInterface({ input: this.proc.stdout! }).on('line', (line) => {
      try {
        const message = JSON.parse(line) as WorkerMessage;
        this.messages.push(message);
        for (const id of message.ids ?? []) this.delivered.add(id);
        this.onMessage?.(message);
      } catch {
        // not one of ours
      }
    });
    this.proc.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
  }

  get started(): boolean {
    return this.messages.some((m) => m.t === 'started');
  }

  fatal(): string | undefined {
    return this.messages.find((m) => m.t === 'fatal')?.error ?? (this.stderr || undefined);
  }

  kill(signal: NodeJS.Signals): void {
    this.proc.kill(signal);
  }
}

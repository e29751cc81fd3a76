/**
 * A Node child process the harness starts, waits for (a line on stdout/stderr matching `ready`),
 * samples (/proc) and stops (SIGTERM, then SIGKILL after a grace period). Output is kept (last
 * lines) so a failure says why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { sampleProcess, type ProcSample } from './proc-stats';

export interface ChildSpec {
  readonly label: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Node flags before the script, e.g. --cpu-prof. */
  readonly nodeArgs?: readonly string[];
  readonly ready: RegExp;
  readonly readyTimeoutMs?: number;
  /** Called with the pid right after the spawn, before the process does any work (e.g. to put it under a CPU quota). */
  readonly onSpawn?: (pid: number) => void;
}

export class Child {
  /** Every child still running, so an interrupted harness can stop them (`Child.killAll()`). */
  private static readonly running = new Set<ChildProcess>();

  static killAll(): void {
    for (const proc of Child.running) proc.kill('SIGTERM');
  }

  private readonly proc: ChildProcess;
  private readonly lines: string[] = [];
  private readonly exited: Promise<number | null>;
  private readonly watchers: Array<(line: string) => void> = [];
  /** JSON log lines (level + message) counted, e.g. "warn: lock not acquired" → 12. */
  readonly logCounts = new Map<string, number>();
  /** Highest VmHWM seen (the last sample before exit). */
  private last: ProcSample | undefined;

  private constructor(readonly spec: ChildSpec) {
    this.proc = spawn(process.execPath, [...(spec.nodeArgs ?? []), ...spec.args], {
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onData = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        this.lines.push(line);
        this.countLog(line);
        if (this.lines.length > 200) this.lines.shift();
        for (const w of this.watchers) w(line);
      }
    };
    this.proc.stdout?.on('data', onData);
    this.proc.stderr?.on('data', onData);
    Child.running.add(this.proc);
    this.exited = new Promise((resolve) =>
      this.proc.once('exit', (code) => {
        Child.running.delete(this.proc);
        resolve(code);
      }),
    );
  }

  private countLog(line: string): void {
    if (!line.startsWith('{')) return;
    try {
      const entry = JSON.parse(line) as { level?: unknown; message?: unknown };
      if (typeof entry.level !== 'string' || typeof entry.message !== 'string') return;
      const key = `${entry.level}: ${entry.message.slice(0, 120)}`;
      this.logCounts.set(key, (this.logCounts.get(key) ?? 0) + 1);
    } catch {
      // not a log line
    }
  }

  static async start(spec: ChildSpec): Promise<Child> {
    const child = new Child(spec);
    try {
      spec.onSpawn?.(child.pid);
    } catch (err) {
      await child.stop(0);
      throw err;
    }
    await child.waitForLine(spec.ready, spec.readyTimeoutMs ?? 60_000);
    return child;
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  /** The first line (already printed or to come) matching `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string> {
    const seen = this.lines.find((l) => pattern.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new Error(`${this.spec.label}: no line matching ${pattern} within ${timeoutMs} ms; output:\n${this.tail()}`)),
        timeoutMs,
      );
      const watcher = (line: string): void => {
        if (pattern.test(line)) finish(() => resolve(line));
      };
      const fail = (err: Error): void => finish(() => reject(err));
      const finish = (then: () => void): void => {
        clearTimeout(timer);
        const i = this.watchers.indexOf(watcher);
        if (i >= 0) this.watchers.splice(i, 1);
        then();
      };
      this.watchers.push(watcher);
      void this.exited.then((code) =>
        fail(new Error(`${this.spec.label} exited (${String(code)}) before printing ${pattern}; output:\n${this.tail()}`)),
      );
    });
  }

  sample(): ProcSample | undefined {
    const s = sampleProcess(this.pid);
    if (s) this.last = s;
    return s ?? this.last;
  }

  tail(n = 30): string {
    return this.lines.slice(-n).join('\n');
  }

  output(): readonly string[] {
    return this.lines;
  }

  /** SIGTERM, wait; SIGKILL after `graceMs`. Returns the last /proc sample taken before exit. */
  async stop(graceMs = 15_000): Promise<ProcSample | undefined> {
    const final = this.sample();
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return final;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    return final;
  }
}

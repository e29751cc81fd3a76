/**
 * The Cosmos emulator as a child process on a fixed loopback port with a journal (`--data-dir`),
 * so that it can be killed with SIGKILL and restarted on the same port and data. Faults, splits
 * and counters go through its documented admin API (infra/cosmos-emulator/README.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CounterSnapshot } from '@opstream/cosmos-emulator';
import { Child } from '../harness/child-process';
import { CLI } from '../harness/emulator-process';

/** A fault rule as the admin API takes it (`PUT /_admin/faults`). */
export interface CosmosFaultRule {
  readonly throttleRate?: number;
  readonly retryAfterMs?: number;
  readonly unavailableRate?: number;
  readonly dropRate?: number;
  readonly latencyMs?: number;
  readonly kinds?: readonly string[];
}

export interface RangeInfo {
  readonly id: string;
  readonly min: string;
  readonly max: string;
  readonly status: string;
  readonly documents: number;
}

export class CosmosProcess {
  private child: Child;
  private peakRss = 0;

  private constructor(
    child: Child,
    readonly port: number,
    readonly dataDir: string,
    readonly partitions: number,
    readonly endpoint: string,
    readonly key: string,
  ) {
    this.child = child;
  }

  static async start(port: number, partitions: number): Promise<CosmosProcess> {
    const dataDir = mkdtempSync(join(tmpdir(), 'opstream-chaos-cosmos-'));
    const child = await CosmosProcess.spawn(port, partitions, dataDir);
    const endpoint = (await child.waitForLine(/^endpoint: /, 5_000)).replace(/^endpoint: /, '').trim();
    const key = (await child.waitForLine(/^key: /, 5_000)).replace(/^key: /, '').trim();
    return new CosmosProcess(child, port, dataDir, partitions, endpoint, key);
  }

  private static spawn(port: number, partitions: number, dataDir: string): Promise<Child> {
    return Child.start({
      label: 'cosmos emulator',
      args: [CLI, 'emulator', 'cosmos', '--port', String(port), '--partitions', String(partitions), '--data-dir', dataDir],
      ready: /^key: /,
      readyTimeoutMs: 60_000,
    });
  }

  get pid(): number {
    return this.child.pid;
  }

  /** Peak RSS of every emulator process so far (bytes). */
  peakRssBytes(): number {
    const s = this.child.sample();
    if (s && Number.isFinite(s.peakRssBytes)) this.peakRss = Math.max(this.peakRss, s.peakRssBytes);
    return this.peakRss;
  }

  /** SIGKILL, then a new process on the same port and journal; resolves with ms until it was ready again. */
  async killAndRestart(): Promise<{ downMs: number }> {
    this.peakRssBytes();
    const killedAt = Date.now();
    process.kill(this.child.pid, 'SIGKILL');
    await this.child.stop(0);
    this.child = await CosmosProcess.spawn(this.port, this.partitions, this.dataDir);
    return { downMs: Date.now() - killedAt };
  }

  async admin(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.endpoint}_admin/${path}`, {
      method,
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`cosmos admin ${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  }

  async setFaults(rules: readonly CosmosFaultRule[]): Promise<void> {
    await this.admin('PUT', 'faults', { rules });
  }

  async clearFaults(): Promise<void> {
    await this.admin('DELETE', 'faults');
  }

  async counters(): Promise<CounterSnapshot> {
    return (await this.admin('GET', 'counters')) as CounterSnapshot;
  }

  async ranges(databaseId: string, containerId: string): Promise<RangeInfo[]> {
    const answer = (await this.admin('GET', `ranges/${databaseId}/${containerId}`)) as { ranges: RangeInfo[] };
    return answer.ranges;
  }

  /** Splits the live range of `containerId` holding the most documents. */
  async splitBusiestRange(databaseId: string, containerId: string): Promise<{ parent: string; children: string[] }> {
    const live = (await this.ranges(databaseId, containerId)).filter((r) => r.status === 'online');
    const busiest = [...live].sort((a, b) => b.documents - a.documents)[0];
    if (!busiest) throw new Error(`no live range in ${databaseId}/${containerId}`);
    return (await this.admin('POST', 'split', { databaseId, containerId, rangeId: busiest.id })) as { parent: string; children: string[] };
  }

  async stop(): Promise<void> {
    await this.child.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  tail(): string {
    return this.child.tail(20);
  }
}

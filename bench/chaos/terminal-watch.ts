/**
 * Tells the workload when an operation is terminal, as an ARM client learns it: from the ARM
 * notification when one arrived, otherwise from the Operation document (polled with the SDK, one
 * query per second for everything pending), so that an ARM outage or a lost notification does not
 * hold the workload up.
 */
import type { Container } from '@azure/cosmos';
import type { ArmEndpoint } from './arm-endpoint';
import { sleep } from './util';

export const TERMINAL = new Set(['Succeeded', 'Failed', 'Canceled']);

export class TerminalWatch {
  private readonly pending = new Map<string, (status: string) => void>();
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly operations: Container,
    private readonly arm: ArmEndpoint,
    private readonly intervalMs = 1_000,
  ) {}

  /** Resolves with the terminal status, or "stopped" when the watch stops first. */
  wait(operationId: string): Promise<string> {
    if (this.stopped) return Promise.resolve('stopped');
    return new Promise((resolve) => this.pending.set(operationId, resolve));
  }

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        await this.tick().catch(() => undefined);
        await sleep(this.intervalMs);
      }
    })();
  }

  private settle(id: string, status: string): void {
    const resolve = this.pending.get(id);
    if (!resolve) return;
    this.pending.delete(id);
    resolve(status);
  }

  private async tick(): Promise<void> {
    if (this.pending.size === 0) return;
    const notified = this.arm.statusByOperation();
    for (const id of [...this.pending.keys()]) {
      const status = notified.get(id);
      if (status !== undefined && TERMINAL.has(status)) this.settle(id, status);
    }
    const ids = [...this.pending.keys()];
    for (let i = 0; i < ids.length && !this.stopped; i += 200) {
      const { resources } = await this.operations.items
        .query<{ id: string; status: unknown }>({
          query: 'SELECT c.id, c.status FROM c WHERE ARRAY_CONTAINS(@ids, c.id)',
          parameters: [{ name: '@ids', value: ids.slice(i, i + 200) }],
        })
        .fetchAll();
      for (const r of resources) if (typeof r.status === 'string' && TERMINAL.has(r.status)) this.settle(r.id, r.status);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const id of [...this.pending.keys()]) this.settle(id, 'stopped');
    await this.loop;
  }
}

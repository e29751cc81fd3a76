/**
 * The polling loop of the baseline, one loop like the scanner's single select over two tickers:
 * every `scanIntervalMs` a Cosmos query for the non-terminal operations replaces the list; every
 * `passIntervalMs` a serial pass handles each listed operation (one CS action + a locked write-back
 * each). Ticks are fixed-rate; a tick missed while a pass or scan ran long is dropped, as Go's
 * time.Ticker drops them. A new operation therefore waits for the next scan, then for the next pass.
 * `stop()` ends the loop after the operation in hand; it really stops.
 */
import { isTerminal } from '../../src/domain/statuses';
import type { BaselineContext, StoredOperation } from './context';
import { handleOperation } from './handle-operation';

export interface PollerOptions {
  readonly scanIntervalMs: number;
  readonly passIntervalMs: number;
}

export interface PollerStats {
  scans: number;
  passes: number;
  /** Operation handlings (one per listed operation per pass). */
  handled: number;
  failures: number;
  /** Documents the scan could not read (skipped). */
  invalid: number;
  listed: number;
  lastPassMs: number;
  maxPassMs: number;
  lastScanMs: number;
  /** Start instants of the last scans (newest last, at most 50). */
  recentScans: number[];
}

export class Poller {
  private readonly list = new Map<string, StoredOperation>();
  private readonly abort = new AbortController();
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  readonly stats: PollerStats = {
    scans: 0,
    passes: 0,
    handled: 0,
    failures: 0,
    invalid: 0,
    listed: 0,
    lastPassMs: 0,
    maxPassMs: 0,
    lastScanMs: 0,
    recentScans: [],
  };

  constructor(
    private readonly ctx: BaselineContext,
    private readonly options: PollerOptions,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const start = Date.now();
    let nextScan = start;
    let nextPass = start + this.options.passIntervalMs;
    const signal = this.abort.signal;
    while (!signal.aborted) {
      const now = Date.now();
      if (now >= nextScan) {
        await this.guard(() => this.scan());
        nextScan = nextTick(start, this.options.scanIntervalMs, Date.now());
        continue;
      }
      if (now >= nextPass) {
        await this.guard(() => this.pass(signal));
        nextPass = nextTick(start, this.options.passIntervalMs, Date.now());
        continue;
      }
      await this.sleepUntil(Math.min(nextScan, nextPass));
    }
  }

  private async guard(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (err) {
      this.stats.failures++;
      this.ctx.logger.error('baseline step failed', { error: (err as Error).message });
    }
  }

  private async scan(): Promise<void> {
    const t0 = Date.now();
    this.stats.recentScans.push(t0);
    if (this.stats.recentScans.length > 50) this.stats.recentScans.shift();
    const { items, invalid } = await this.ctx.operations.listNonTerminal();
    this.stats.invalid += invalid.length;
    for (const e of invalid) this.ctx.logger.warn('skipping an operation document that does not validate', { error: e.message });
    this.list.clear();
    for (const op of items) this.list.set(`${op.partitionKey}/${op.id}`, op);
    this.stats.scans++;
    this.stats.listed = this.list.size;
    this.stats.lastScanMs = Date.now() - t0;
  }

  private async pass(signal: AbortSignal): Promise<void> {
    const t0 = Date.now();
    await this.ctx.notifications.retryPending(signal);
    for (const [key, op] of [...this.list]) {
      if (signal.aborted) return;
      this.stats.handled++;
      try {
        const result = await handleOperation(this.ctx, op);
        if (result.kind === 'done' || isTerminal(result.operation.status)) this.list.delete(key);
        else this.list.set(key, result.operation);
      } catch (err) {
        this.stats.failures++;
        this.ctx.logger.warn('operation not handled this pass', { operationId: op.id, error: (err as Error).message });
      }
    }
    this.stats.passes++;
    this.stats.lastPassMs = Date.now() - t0;
    this.stats.maxPassMs = Math.max(this.stats.maxPassMs, this.stats.lastPassMs);
  }

  private sleepUntil(at: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, at - Date.now()));
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/** The first tick of a fixed-rate ticker started at `start` that is after `now` (missed ticks dropped). */
export function nextTick(start: number, interval: number, now: number): number {
  return start + (Math.floor((now - start) / interval) + 1) * interval;
}

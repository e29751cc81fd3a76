/**
 * Open-loop offered load: operations are written at a fixed rate whatever the system does, as ARM
 * clients would. Each operation is the next step of a cluster lifecycle whose previous operation
 * ARM was told about (FULL_LIFECYCLE order); when none is waiting, a new cluster is created. Runs for
 * `durationMs`, then stops by itself; `drain()` waits (bounded) for what is still running.
 */
import {
  FULL_LIFECYCLE,
  issue,
  type FrontendSimulator,
  type NotificationReceiver,
  type Step,
  type WrittenOperation,
} from '@opstream/frontend-simulator';

export interface OpenLoopOptions {
  readonly frontend: FrontendSimulator;
  readonly receiver: NotificationReceiver;
  readonly subscriptions: readonly string[];
  /** Operations per second. */
  readonly rate: number;
  readonly durationMs: number;
  /** Names clusters apart from other runs on the same database. */
  readonly runId: string;
  /** Give up waiting for an operation's notification after this. */
  readonly notifyTimeoutMs: number;
}

export interface IssuedOperation {
  readonly op: WrittenOperation;
  /** When the frontend write was started. */
  readonly issuedAt: number;
  readonly step: Step;
  notifiedAt?: number;
  status?: string;
}

interface Lifecycle {
  readonly sub: string;
  readonly cluster: string;
  next: number;
}

export class OpenLoop {
  readonly issued: IssuedOperation[] = [];
  frontendErrors = 0;
  startedAt = 0;
  private readonly idle: Lifecycle[] = [];
  private clusters = 0;
  private pendingWrites = new Set<Promise<void>>();
  private waiting = new Set<Promise<void>>();

  constructor(private readonly options: OpenLoopOptions) {}

  async run(): Promise<void> {
    const { rate, durationMs } = this.options;
    this.startedAt = Date.now();
    let sent = 0;
    for (;;) {
      const elapsed = Date.now() - this.startedAt;
      if (elapsed >= durationMs) break;
      const due = Math.floor((rate * elapsed) / 1000);
      while (sent < due) {
        sent++;
        this.issueOne();
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(this.pendingWrites);
  }

  /** Waits until every issued operation was notified, or `timeoutMs`. Returns how many are still open. */
  async drain(timeoutMs: number): Promise<number> {
    const all = Promise.all(this.waiting);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    return this.issued.filter((i) => i.notifiedAt === undefined).length;
  }

  private issueOne(): void {
    const lc = this.idle.shift() ?? this.newLifecycle();
    const step = FULL_LIFECYCLE[lc.next];
    const issuedAt = Date.now();
    const write = this.write(lc, step)
      .then((op) => {
        const issued: IssuedOperation = { op, step, issuedAt };
        this.issued.push(issued);
        const waiting = this.options.receiver
          .waitForNotification(op.operationId, this.options.notifyTimeoutMs)
          .then((n) => {
            issued.notifiedAt = n.at;
            issued.status = String((n.body as { status?: unknown }).status);
            lc.next++;
            if (issued.status === 'Succeeded' && lc.next < FULL_LIFECYCLE.length) this.idle.push(lc);
          })
          .catch(() => undefined);
        this.waiting.add(waiting);
      })
      .catch(() => {
        this.frontendErrors++;
      })
      .finally(() => this.pendingWrites.delete(write));
    this.pendingWrites.add(write);
  }

  private newLifecycle(): Lifecycle {
    const n = this.clusters++;
    const subs = this.options.subscriptions;
    return { sub: subs[n % subs.length], cluster: `t${n}-${this.options.runId}`, next: 0 };
  }

  private write(lc: Lifecycle, step: Step): Promise<WrittenOperation> {
    return issue(this.options.frontend, step, lc.sub, `rg-${this.options.runId}`, lc.cluster);
  }
}

/**
 * The load of a chaos run: cluster lifecycles over the subscriptions (`LIFECYCLE` in
 * frontend-requests.ts: every kind opstream handles — cluster, node pool, break-glass credential
 * requested then revoked, external auth — created, changed and deleted), each step issued through
 * the frontend when the previous one is terminal, as an ARM client does. Steps are
 * paced (a steady rate, so that the load spans the fault schedule) and stop once `target`
 * operations were issued. Every operation issued is recorded with its write time.
 */
import type { Container } from '@azure/cosmos';
import type { FrontendSimulator } from '@opstream/frontend-simulator';
import { LIFECYCLE, sendRequest, type Step, type Target } from './frontend-requests';
import type { TerminalWatch } from './terminal-watch';
import { retrying, sleep } from './util';

export interface IssuedOperation {
  readonly id: string;
  readonly partitionKey: string;
  readonly externalId: string;
  readonly step: Step;
  readonly target: Target;
  readonly writtenAt: number;
  /** Written, but the frontend's answer was lost (found in Cosmos after an error). */
  readonly adopted: boolean;
  status?: string;
}

export interface Refusal {
  readonly step: Step;
  readonly target: Target;
  readonly reason: string;
  readonly at: number;
}

export interface WorkloadOptions {
  readonly frontend: FrontendSimulator;
  readonly operations: Container;
  readonly watch: TerminalWatch;
  readonly subscriptions: readonly string[];
  readonly runId: string;
  readonly target: number;
  readonly ratePerSecond: number;
  readonly concurrency: number;
}

export class Workload {
  readonly issued: IssuedOperation[] = [];
  readonly refused: Refusal[] = [];
  /** Frontend requests that failed at least once (retried or adopted). */
  retriedRequests = 0;
  /** Lifecycles with a live cluster and no delete issued yet (quote-name victims). */
  private readonly live = new Map<string, Target>();
  private nextLifecycle = 0;
  private nextSlotAt = 0;
  private stopped = false;
  private full: (() => void) | undefined;

  constructor(private readonly o: WorkloadOptions) {}

  /** Registers the subscriptions (each with a tenant), as ARM does before any request. */
  async prepare(): Promise<void> {
    for (const [i, sub] of this.o.subscriptions.entries()) {
      await retrying(() => this.o.frontend.registerSubscription(sub, `00000000-0000-4000-a000-${String(i).padStart(12, '0')}`));
    }
  }

  /** Runs until `target` operations were issued (or `stop()`); lifecycles in flight are left to finish. */
  run(): Promise<void> {
    const reached = new Promise<void>((resolve) => (this.full = resolve));
    this.nextSlotAt = Date.now();
    for (let w = 0; w < this.o.concurrency; w++) void this.worker();
    return reached;
  }

  stop(): void {
    this.stopped = true;
    this.full?.();
  }

  get done(): boolean {
    return this.stopped || this.issued.length >= this.o.target;
  }

  /** A cluster that exists and has no delete issued yet. */
  someLiveCluster(): Target | undefined {
    const all = [...this.live.values()];
    return all[Math.floor(Math.random() * all.length)];
  }

  /** Steady rate; after a hold-up (every lifecycle waiting) the load catches up, by at most 10 s of backlog. */
  private async pace(): Promise<void> {
    const slot = Math.max(Date.now() - 10_000, this.nextSlotAt);
    this.nextSlotAt = slot + 1000 / this.o.ratePerSecond;
    await sleep(slot - Date.now());
  }

  private async worker(): Promise<void> {
    while (!this.done) {
      const n = this.nextLifecycle++;
      const sub = this.o.subscriptions[n % this.o.subscriptions.length];
      const target: Target = { sub, rg: `rg-${this.o.runId}-${n % 3}`, cluster: `c${n}-${this.o.runId}` };
      await this.lifecycle(target);
    }
  }

  private async lifecycle(target: Target): Promise<void> {
    const key = `${target.sub}/${target.rg}/${target.cluster}`;
    for (const step of LIFECYCLE) {
      await this.pace();
      if (this.done) return;
      if (step === 'deleteCluster') this.live.delete(key);
      const outcome = await sendRequest(this.o.frontend, this.o.operations, step, target);
      if (outcome.attempts > 1 || (outcome.kind === 'written' && outcome.adopted)) this.retriedRequests++;
      if (outcome.kind === 'refused') {
        this.refused.push({ step, target, reason: outcome.reason, at: Date.now() });
        this.live.delete(key);
        return;
      }
      const op: IssuedOperation = {
        id: outcome.op.operationId,
        partitionKey: outcome.op.partitionKey,
        externalId: outcome.op.externalId,
        step,
        target,
        writtenAt: outcome.op.writtenAt,
        adopted: outcome.adopted,
      };
      this.issued.push(op);
      if (this.issued.length >= this.o.target) this.full?.();
      const status = await this.o.watch.wait(op.id);
      op.status = status;
      if (status !== 'Succeeded') {
        this.live.delete(key);
        return;
      }
      if (step === 'createCluster') this.live.set(key, target);
    }
  }
}

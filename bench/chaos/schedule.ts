/**
 * The fault schedule of a chaos run, one phase after the other while the load runs (the instance
 * kills run beside all of them). Every fault goes through a documented control: the emulator's
 * `/_admin/faults` and `/_admin/split`, SIGKILL of the emulator process and a restart on its
 * `--data-dir`, the CS simulator's `/_admin/faults`, the gate in front of CS, the ARM receiver
 * stopped and started, and a frontend holding the subscription lock past its TTL.
 *
 * Each phase is recorded with its window and what was done, for attributing figures.
 */
import type { Container } from '@azure/cosmos';
import type { FrontendSimulator } from '@opstream/frontend-simulator';
import type { ArmEndpoint } from './arm-endpoint';
import { countCalls, type ClustersService } from './clusters-service';
import type { CosmosProcess } from './cosmos-process';
import { sendRequest } from './frontend-requests';
import type { Killer } from './killer';
import type { ChaosProfile } from './profile';
import { holdStuckLock, type StuckLockResult } from './stuck-lock';
import { errorText, sleep } from './util';

export type PhaseName = 'warm' | 'cosmos-faults' | 'cs-5xx' | 'cs-latency' | 'cs-drop-response' | 'cs-down' | 'arm-down' | 'stuck-lock';

export interface PhaseRecord {
  readonly name: PhaseName;
  readonly from: number;
  to: number;
  readonly notes: Record<string, string | number>;
}

export interface ScheduleDeps {
  readonly profile: ChaosProfile;
  readonly databaseId: string;
  readonly cosmos: CosmosProcess;
  readonly cs: ClustersService;
  readonly arm: ArmEndpoint;
  readonly killer: Killer;
  readonly locks: Container;
  readonly operations: Container;
  readonly frontend: FrontendSimulator;
  readonly runId: string;
  /** The subscription whose lock the stuck frontend takes. */
  readonly stuckSubscription: string;
  readonly log: (line: string) => void;
}

/** 10 % 429, 5 % 503 and 1 % dropped connections on every request kind (the rule draws drop, then 429, then 503). */
function cosmosFaultRule(): { throttleRate: number; unavailableRate: number; dropRate: number; retryAfterMs: number } {
  const drop = 0.01;
  const throttle = 0.1 / (1 - drop);
  const unavailable = 0.05 / ((1 - drop) * (1 - throttle));
  return { dropRate: drop, throttleRate: throttle, unavailableRate: unavailable, retryAfterMs: 50 };
}

export class Schedule {
  readonly phases: PhaseRecord[] = [];
  stuckLock: StuckLockResult | undefined;
  /** Creates written on the stuck subscription right before its lock was taken: their write-backs must wait. */
  readonly stuckOperations: string[] = [];
  readonly errors: string[] = [];

  constructor(private readonly d: ScheduleDeps) {}

  private async phase(name: PhaseName, body: (notes: Record<string, string | number>) => Promise<void>): Promise<void> {
    const record: PhaseRecord = { name, from: Date.now(), to: 0, notes: {} };
    this.phases.push(record);
    this.d.log(`phase ${name}`);
    try {
      await body(record.notes);
    } catch (err) {
      record.notes.error = errorText(err);
      this.errors.push(`${name}: ${errorText(err)}`);
    }
    record.to = Date.now();
  }

  /** A CS phase, with the calls answered 5xx and the responses dropped during it (simulator counters). */
  private csPhase(name: PhaseName, body: (notes: Record<string, string | number>) => Promise<void>): Promise<void> {
    return this.phase(name, async (notes) => {
      const before = await this.d.cs.counters();
      await body(notes);
      const after = await this.d.cs.counters();
      const delta = (status?: (s: number | 'dropped') => boolean): number =>
        countCalls(after, undefined, status) - countCalls(before, undefined, status);
      notes.calls = delta();
      notes.answered5xx = delta((s) => typeof s === 'number' && s >= 500);
      notes.droppedResponses = delta((s) => s === 'dropped');
      notes.createsDropped =
        countCalls(after, 'POST /clusters', (s) => s === 'dropped') - countCalls(before, 'POST /clusters', (s) => s === 'dropped');
    });
  }

  async run(): Promise<void> {
    const { profile, cosmos, cs, arm } = this.d;
    const p = profile.phases;
    await this.phase('warm', () => sleep(p.warmMs));
    await this.phase('cosmos-faults', async (notes) => {
      const before = await cosmos.counters();
      await cosmos.setFaults([cosmosFaultRule()]);
      await sleep(p.cosmosFaultsMs / 3);
      const split = await cosmos.splitBusiestRange(this.d.databaseId, 'Operations');
      notes.split = `range ${split.parent} → ${split.children.join(', ')}`;
      await sleep((p.cosmosFaultsMs * 2) / 3);
      await cosmos.clearFaults();
      const after = await cosmos.counters();
      const total = after.total - before.total;
      notes.requests = total;
      notes.throttled = after.throttled - before.throttled;
      notes.unavailable = after.unavailable - before.unavailable;
      notes.dropped = after.dropped - before.dropped;
      await this.d.killer.pause();
      try {
        const { downMs } = await cosmos.killAndRestart();
        notes.emulatorDownMs = downMs;
      } finally {
        this.d.killer.resumeKilling();
      }
    });
    await this.csPhase('cs-5xx', async (notes) => {
      const end = Date.now() + p.cs5xxMs;
      let bursts = 0;
      while (Date.now() < end) {
        await cs.addFault({ kind: 'error', status: bursts % 2 === 0 ? 503 : 500 });
        await sleep(Math.min(2_000, end - Date.now()));
        await cs.clearFaults();
        bursts++;
        await sleep(Math.max(0, Math.min(2_000, end - Date.now())));
      }
      notes.bursts = bursts;
    });
    await this.csPhase('cs-latency', async (notes) => {
      const beyond = profile.csTimeoutMs + 1_000;
      await cs.addFault({ kind: 'latency', latencyMs: 200 });
      const slow = await cs.addFault({ kind: 'latency', latencyMs: beyond, rate: 0.2 });
      notes.latency = `200 ms on every call, +${beyond} ms (beyond the ${profile.csTimeoutMs} ms timeout) on 20 %`;
      await sleep(p.csLatencyMs);
      notes.callsDelayedBeyondTimeout = (await cs.faults()).find((f) => f.id === slow)?.applied ?? -1;
      await cs.clearFaults();
    });
    await this.csPhase('cs-drop-response', async (notes) => {
      await cs.addFault({ kind: 'drop-response', endpoint: 'POST /clusters', rate: 0.5 });
      await cs.addFault({ kind: 'drop-response', endpoint: 'POST /clusters/{id}/node_pools', rate: 0.3 });
      await cs.addFault({ kind: 'drop-response', endpoint: 'DELETE /clusters/{id}', rate: 0.3 });
      notes.rules = 'POST /clusters 50 %, POST node_pools 30 %, DELETE /clusters/{id} 30 %: performed, connection destroyed';
      await sleep(p.csDropResponseMs);
      await cs.clearFaults();
    });
    await this.csPhase('cs-down', async (notes) => {
      await cs.gate.down();
      await sleep(p.csDownMs);
      await cs.gate.up();
      notes.downMs = p.csDownMs;
    });
    await Promise.all([
      this.phase('arm-down', async (notes) => {
        await arm.down();
        await sleep(p.armDownMs);
        await arm.up();
        notes.downMs = p.armDownMs;
      }),
      this.phase('stuck-lock', async (notes) => {
        const sub = this.d.stuckSubscription;
        const written = await Promise.all(
          [0, 1, 2].map((i) =>
            sendRequest(this.d.frontend, this.d.operations, 'createCluster', {
              sub,
              rg: `rg-stuck-${this.d.runId}`,
              cluster: `stuck${i}-${this.d.runId}`,
            }),
          ),
        );
        for (const w of written) if (w.kind === 'written') this.stuckOperations.push(w.op.operationId);
        notes.operationsWaiting = this.stuckOperations.length;
        this.stuckLock = await holdStuckLock(this.d.locks, this.d.stuckSubscription, p.stuckLockMs);
        notes.heldMs = this.stuckLock.heldForMs;
      }),
    ]);
  }
}

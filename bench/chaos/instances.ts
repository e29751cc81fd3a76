/**
 * The `opstream run` instances of a chaos run: N slots, each running one child process at a time
 * (started as bench/harness/system-under-test.ts starts them, with the lease and Clusters Service
 * settings of the profile). A slot's instance can be killed with SIGKILL and is then restarted
 * under a new instance name (a new owner in the Leases container). An instance that exits without
 * being killed is recorded and restarted. Peak RSS (VmHWM) is sampled per process.
 */
import { instanceSettings, settingsEnv } from '@opstream/local-stack';
import { Child } from '../harness/child-process';
import { CLI } from '../harness/emulator-process';
import type { ChaosProfile } from './profile';
import { errorText, sleep } from './util';

export interface InstanceTarget {
  readonly cosmosEndpoint: string;
  readonly cosmosKey: string;
  readonly database: string;
  readonly clustersServiceUrl: string;
  readonly processorName: string;
  /** Settings of a scenario of its own (OPSTREAM_* variables), over the profile's. */
  readonly extraEnv?: Readonly<Record<string, string>>;
}

export interface UnexpectedExit {
  readonly instanceName: string;
  readonly at: number;
  readonly tail: string;
}

interface Slot {
  readonly index: number;
  generation: number;
  name: string;
  child: Child | undefined;
  /** True while a start is under way. */
  starting: boolean;
  peakRssBytes: number;
}

export class Instances {
  private readonly slots: Slot[];
  readonly unexpectedExits: UnexpectedExit[] = [];
  readonly startFailures: string[] = [];
  private readonly killed = new Set<number>();
  private monitor: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly profile: ChaosProfile,
    private readonly target: InstanceTarget,
  ) {
    this.slots = Array.from({ length: profile.instances }, (_, index) => ({
      index,
      generation: 0,
      name: '',
      child: undefined,
      starting: false,
      peakRssBytes: 0,
    }));
  }

  private env(name: string): Record<string, string> {
    const { lease, csTimeoutMs } = this.profile;
    return {
      ...settingsEnv(instanceSettings(this.target)),
      OPSTREAM_CLUSTERS_SERVICE_TIMEOUT_MS: String(csTimeoutMs),
      OPSTREAM_CHANGEFEED_NAME: this.target.processorName,
      OPSTREAM_CHANGEFEED_INSTANCE_NAME: name,
      OPSTREAM_CHANGEFEED_START_FROM: 'beginning',
      OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: String(lease.expirationMs),
      OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: String(lease.renewMs),
      OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: String(lease.acquireMs),
      OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '100',
      OPSTREAM_FOLLOW_MAX_DELAY_MS: '1000',
      // A killed instance's unsent notifications are taken over this soon (the drain stays short).
      OPSTREAM_PIPELINE_NOTIFICATION_CLAIM_MS: '5000',
      OPSTREAM_OPS_ADDR: '127.0.0.1:0',
      OPSTREAM_LOG_LEVEL: 'warn',
      OPSTREAM_LOG_FORMAT: 'json',
      ...this.target.extraEnv,
    };
  }

  /** Starts every slot (in parallel) and watches for unexpected exits. */
  async start(): Promise<void> {
    await Promise.all(this.slots.map((s) => this.startSlot(s)));
    this.monitor = setInterval(() => this.check(), 500);
  }

  /** Starts the slot's next generation, retrying (e.g. while Cosmos is down) until it runs. */
  private async startSlot(slot: Slot): Promise<void> {
    slot.starting = true;
    try {
      for (let attempt = 0; !this.closing; attempt++) {
        slot.generation++;
        slot.name = `chaos-i${slot.index + 1}-g${slot.generation}`;
        try {
          const child = await Child.start({
            label: `opstream ${slot.name}`,
            args: [CLI, 'run'],
            env: this.env(slot.name),
            ready: /running/,
            readyTimeoutMs: 90_000,
          });
          if (this.closing) await child.stop(10_000);
          else slot.child = child;
          return;
        } catch (err) {
          // The error carries the instance's last lines: keep the last two (the reason it gave).
          const lines = (err instanceof Error ? err.message : String(err)).split('\n').filter((l) => l.trim() !== '');
          this.startFailures.push(`${slot.name}: ${errorText(err)} ${lines.slice(-2).join(' | ').slice(0, 400)}`);
          if (attempt >= 20) throw err;
          await sleep(1_000);
        }
      }
    } finally {
      slot.starting = false;
    }
  }

  private alive(child: Child): boolean {
    try {
      process.kill(child.pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  private check(): void {
    for (const slot of this.slots) {
      const child = slot.child;
      if (!child || slot.starting) continue;
      this.sample(slot);
      if (this.alive(child) || this.killed.has(child.pid) || this.closing) continue;
      this.unexpectedExits.push({ instanceName: slot.name, at: Date.now(), tail: child.tail(15) });
      slot.child = undefined;
      void this.startSlot(slot).catch(() => undefined);
    }
  }

  private sample(slot: Slot): void {
    const s = slot.child?.sample();
    if (s && Number.isFinite(s.peakRssBytes)) slot.peakRssBytes = Math.max(slot.peakRssBytes, s.peakRssBytes);
  }

  /** Whether every slot runs an instance (none starting). */
  allRunning(): boolean {
    return this.slots.every((s) => s.child !== undefined && !s.starting);
  }

  /** Names of the instances running now. */
  names(): string[] {
    return this.slots.filter((s) => s.child).map((s) => s.name);
  }

  /**
   * SIGKILLs the instance named `name` and starts its slot's next generation (not awaited).
   * Resolves with the kill instant, once the process is gone.
   */
  async kill(name: string): Promise<number> {
    const slot = this.slots.find((s) => s.name === name && s.child);
    if (!slot?.child) throw new Error(`no running instance ${name}`);
    const child = slot.child;
    this.sample(slot);
    this.killed.add(child.pid);
    const at = Date.now();
    process.kill(child.pid, 'SIGKILL');
    await child.stop(0);
    slot.child = undefined;
    void this.startSlot(slot).catch(() => undefined);
    return at;
  }

  /** CPU time used so far by each running instance (ms; undefined for a slot with none running). */
  cpuMs(): Array<number | undefined> {
    return this.slots.map((s) => (s.child ? s.child.sample()?.cpuMs : undefined));
  }

  /** Peak RSS per slot over all its generations (bytes). */
  peakRss(): Array<{ slot: string; peakRssBytes: number; generations: number }> {
    for (const s of this.slots) this.sample(s);
    return this.slots.map((s) => ({ slot: `i${s.index + 1}`, peakRssBytes: s.peakRssBytes, generations: s.generation }));
  }

  async stop(): Promise<void> {
    this.closing = true;
    if (this.monitor) clearInterval(this.monitor);
    for (const s of this.slots) this.sample(s);
    await Promise.all(this.slots.map((s) => s.child?.stop(10_000)));
  }
}

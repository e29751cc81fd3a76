/**
 * Kills one opstream instance with SIGKILL every `everyMs` (its slot restarts it under a new
 * name), rotating over the instances that hold leases, and has the lease watch time the takeover
 * of the leases it held. Paused while the Cosmos emulator itself is down (a takeover then measures
 * the emulator restart, not the lease protocol).
 */
import type { Instances } from './instances';
import type { LeaseWatch } from './lease-watch';
import { errorText } from './util';

export class Killer {
  kills = 0;
  readonly errors: string[] = [];
  private paused: Promise<void> | undefined;
  private resume: (() => void) | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private turn = 0;
  private current: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly instances: Instances,
    private readonly leases: LeaseWatch,
    private readonly everyMs: number,
    /** Longest a takeover is followed. */
    private readonly takeoverTimeoutMs: number,
  ) {}

  start(): void {
    this.loop = (async () => {
      let next = Date.now() + this.everyMs;
      while (!this.stopped) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, next - Date.now()));
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        next += this.everyMs;
        if (this.stopped) break;
        await this.paused;
        if (!this.instances.allRunning()) continue; // a restart is still under way: skip this turn
        this.current = this.killOne().catch((err: unknown) => {
          this.errors.push(errorText(err));
        });
        await this.current;
        this.current = undefined;
      }
    })();
  }

  private async killOne(): Promise<void> {
    const before = await this.leases.read();
    const holders = this.instances.names().filter((n) => before.some((l) => l.Owner === n));
    if (holders.length === 0) return;
    const victim = holders[this.turn++ % holders.length];
    const killAt = await this.instances.kill(victim);
    this.kills++;
    this.leases.track(victim, killAt, before, this.takeoverTimeoutMs);
  }

  /**
   * Stops killing until `resumeKilling()`; resolves once a kill in progress is done and its
   * takeover ended, so a fault the caller injects next (the emulator's own restart: no lease can
   * be taken while Cosmos is down) is not measured as part of that takeover.
   */
  async pause(): Promise<void> {
    this.paused ??= new Promise((resolve) => (this.resume = resolve));
    await this.current;
    await this.leases.settled();
  }

  resumeKilling(): void {
    this.resume?.();
    this.paused = undefined;
    this.resume = undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.resumeKilling();
    await this.loop;
  }
}

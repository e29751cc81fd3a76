/**
 * The monitors every chaos run keeps beside its instances: the lease watch (owners, takeovers), the
 * lag monitor (stalled ranges) and the terminal watch (when the workload's operations end). Started
 * once every range has an owner and the leases are spread over the instances (or the wait timed out).
 */
import type { Container } from '@azure/cosmos';
import type { ArmEndpoint } from './arm-endpoint';
import { LagMonitor } from './lag-monitor';
import { LeaseWatch } from './lease-watch';
import type { ChaosProfile } from './profile';
import { TerminalWatch } from './terminal-watch';
import { waitUntil } from './util';

export interface RunMonitors {
  readonly leases: LeaseWatch;
  readonly lag: LagMonitor;
  readonly watch: TerminalWatch;
  /** Whether the leases were spread over every instance before the wait timed out. */
  readonly spread: boolean;
}

export async function startRunMonitors(
  o: { leases: Container; operations: Container; arm: ArmEndpoint; profile: ChaosProfile; processorName: string; lagIntervalMs: number },
  cleanups: Array<() => Promise<unknown>>,
): Promise<RunMonitors> {
  const leases = new LeaseWatch(o.leases);
  leases.start();
  cleanups.unshift(() => leases.stop());
  const spread = await waitUntil(async () => {
    const rows = await leases.read();
    return (
      rows.length === o.profile.partitions && rows.every((l) => l.Owner) && new Set(rows.map((l) => l.Owner)).size === o.profile.instances
    );
  }, 60_000);
  const lag = new LagMonitor(
    {
      feedContainer: o.operations,
      leaseContainer: o.leases,
      processorName: o.processorName,
      leaseExpirationMs: o.profile.lease.expirationMs,
    },
    o.lagIntervalMs,
  );
  lag.start();
  cleanups.unshift(() => lag.stop());
  const watch = new TerminalWatch(o.operations, o.arm);
  watch.start();
  cleanups.unshift(() => watch.stop());
  return { leases, lag, watch, spread };
}

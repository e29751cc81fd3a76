import { Command } from 'commander';
import { readLeaseReport, type LeaseReport } from '../../inspect/lease-report';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED } from '../config-flags';
import { withCosmos } from '../cosmos-access';
import { formatTable } from '../table';
import { registerLeasesRelease } from './leases-release';
import { registerLeasesReset } from './leases-reset';

/**
 * `opstream leases`: the change-feed leases of the configured processor, read from the lease
 * container (no running instance needed): owner, range, checkpoint, lag, expired.
 */
export function registerLeases(program: Command): void {
  const command = program
    .command('leases')
    .description('list the change-feed leases (owner, range, checkpoint, lag, expired) from the lease container')
    .option('--json', 'print the report as JSON')
    .option('--no-lag', 'skip the lag estimate (one change-feed read per lease)')
    .addHelpText(
      'after',
      `
Reads the lease container directly: leases.container (default Leases) in leases.database and the
account of leases.endpoint when set, else in cosmos.database; the leases are those of the
container cosmos.operationsContainer. The settings come from the flags below, OPSTREAM_*
environment variables or --config, as for "opstream run". Lag counts
change-feed transactions (LSNs) after the lease's checkpoint, estimated as the .NET estimator does.

Exit codes: 0 listed, 69 Cosmos unreachable, 78 bad or missing settings (cosmos.endpoint, cosmos.key).`,
    );
  addConfigFlags(command).action(async (flags: Record<string, unknown>) => {
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    const report = await withCosmos(config, ({ containers }) =>
      readLeaseReport({
        feedContainer: containers.operations,
        leaseContainer: containers.leases,
        processorName: config.changefeed.name,
        leaseExpirationMs: config.changefeed.leaseExpirationMs,
        estimateLag: flags.lag !== false,
      }),
    );
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${leaseTable(report, Date.now())}\n`);
  });
  // `leases --json` and `leases release … --json`: each command's options are its own (the program's too).
  command.enablePositionalOptions();
  registerLeasesRelease(command);
  registerLeasesReset(command);
}

function leaseTable(report: LeaseReport, now: number): string {
  if (report.leases.length === 0) {
    const others = report.otherPrefixes.length ? `; leases of other processors/containers: ${report.otherPrefixes.join(', ')}` : '';
    return `no leases for processor "${report.processorName}" (prefix ${report.prefix}): no instance has started on this container yet${others}`;
  }
  const table = formatTable(report.leases, [
    { header: 'LEASE', value: (l) => l.leaseToken },
    { header: 'OWNER', value: (l) => l.owner ?? '(released)' },
    { header: 'CONTINUATION', value: (l) => l.continuation ?? '(beginning)' },
    { header: 'LAG', value: (l) => (l.lag === null ? (l.lagError ? 'error' : '-') : String(l.lag)), align: 'right' },
    { header: 'EXPIRED', value: (l) => (l.expired ? 'yes' : 'no') },
    { header: 'LAST WRITE', value: (l) => `${ago(now - Date.parse(l.lastWrite))} ago` },
  ]);
  const errors = report.leases.filter((l) => l.lagError).map((l) => `lag of ${l.leaseToken}: ${l.lagError}`);
  return [table, `total lag ${report.totalLag}${report.unknownLag ? ` (${report.unknownLag} lease(s) unknown)` : ''}`, ...errors].join(
    '\n',
  );
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}

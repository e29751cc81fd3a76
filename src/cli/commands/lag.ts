import { Command, InvalidArgumentError } from 'commander';
import { readLeaseReport } from '../../inspect/lease-report';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED } from '../config-flags';
import { withCosmos } from '../cosmos-access';
import { CliError, EXIT } from '../exit-codes';

const nonNegative = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number >= 0');
  return n;
};

/** `opstream lag`: total and per-lease change-feed lag, for people and scripts (`--json`, `--fail-above`). */
export function registerLag(program: Command): void {
  const command = program
    .command('lag')
    .description('print the change-feed lag: the total, then per lease (estimated from the lease container)')
    .option('--json', 'print {"total", "unknown", "leases": [{"leaseToken", "lag"}]}')
    .option('--fail-above <n>', "exit 1 when the total lag is above n (or a lease's lag is unknown)", nonNegative)
    .addHelpText(
      'after',
      `
Lag counts change-feed transactions (LSNs) after each lease's checkpoint. Cosmos settings as for
"opstream run" (flags, OPSTREAM_* environment, --config): the leases are read where leases.*
puts them, the change feed of cosmos.operationsContainer.

Examples:
  opstream lag
  opstream lag --json | jq .total
  opstream lag --fail-above 1000 || alert "opstream is behind"

Exit codes: 0 ok, 1 above --fail-above, 69 Cosmos unreachable, 78 bad or missing settings.`,
    );
  addConfigFlags(command).action(async (flags: Record<string, unknown>) => {
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    const report = await withCosmos(config, ({ containers }) =>
      readLeaseReport({ feedContainer: containers.operations, leaseContainer: containers.leases, processorName: config.changefeed.name }),
    );
    const leases = report.leases.map((l) => ({ leaseToken: l.leaseToken, lag: l.lag }));
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ total: report.totalLag, unknown: report.unknownLag, leases })}\n`);
    } else {
      const width = Math.max(0, ...leases.map((l) => l.leaseToken.length));
      const lines = [
        `total ${report.totalLag}${report.unknownLag ? ` (${report.unknownLag} unknown)` : ''}`,
        ...leases.map((l) => `${l.leaseToken.padEnd(width)}  ${l.lag ?? 'unknown'}`),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    const limit = flags.failAbove as number | undefined;
    if (limit !== undefined && (report.totalLag > limit || report.unknownLag > 0)) {
      throw new CliError(
        `lag ${report.totalLag}${report.unknownLag ? ` (+${report.unknownLag} unknown)` : ''} is above ${limit}`,
        EXIT.failure,
      );
    }
  });
}

import { Command } from 'commander';
import { leaseHandOver, type LeaseDocument } from '@opstream/changefeed';

const { continuationAt, readLease, resetAction, writeReset } = leaseHandOver;
type ResetTarget = Parameters<typeof continuationAt>[2];
import type { OpstreamConfig } from '../../config/config-types';
import type { OpstreamContainers } from '../../cosmos';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED } from '../config-flags';
import { confirmChange, type ChangeFlags } from '../confirm';
import { withCosmos } from '../cosmos-access';
import { CliError, EXIT } from '../exit-codes';

interface ResetFlags extends ChangeFlags {
  to?: string;
  json?: boolean;
  wait?: boolean;
  waitMs?: string;
}

/** What `leases reset` did (or would do), as `--json` prints it. */
interface ResetReport {
  leaseToken: string;
  dryRun: boolean;
  /** write: nobody read the range (unowned or expired), written at once; request: the owner was asked. */
  action: 'write' | 'request';
  owner: string | null;
  to: string;
  /** Raw etag before and after (null: the beginning). */
  from: string | null;
  continuation: string | null;
  /** The owner released the lease with the new position within --wait-ms (always true for a direct write). */
  done?: boolean;
}

/**
 * `opstream leases reset <lease> --to beginning|now|<time>`: moves a lease's position, as
 * `kafka-consumer-groups --reset-offsets` moves a group's. Coordinated through the lease document
 * (the change feed package's lease-hand-over.ts): a live owner stops reading and releases the lease
 * with the new continuation in one write, so nobody reads on from the old position.
 */
export function registerLeasesReset(leases: Command): void {
  const command = leases
    .command('reset')
    .description("move a lease's position to the beginning, to now, or to a time (its owner restarts the range there)")
    .argument('<lease>', 'lease token, as "opstream leases" lists it (LEASE column)')
    .requiredOption('--to <when>', 'beginning, now, or an ISO 8601 time (e.g. 2026-12-05T08:00:00Z): the first change after it')
    .option('--dry-run', 'show the position it would move to, change nothing')
    .option('--json', 'print what was done as JSON')
    .option('--yes', 'do it without asking (needed when not on a terminal)')
    .option('--no-wait', 'return once the request is written, without waiting for the owner')
    .option('--wait-ms <ms>', 'how long to wait for the owner (default: 3 lease renewal intervals)')
    .addHelpText(
      'after',
      `
Changes before the new position are not read again (now, a time) or are all read again (beginning,
an earlier time): every handling is idempotent, so a replay costs only time. A lease nobody reads
(unowned, or its owner's lease expired) is written at once. A live owner is asked: at its next lease
write, at most changefeed.leaseRenewIntervalMs later, it stops reading, drops what it had not
checkpointed, and releases the lease with the new position; the next owner (maybe itself) starts
there and relists the range. "now" and a time are resolved when the command runs.

Examples:
  opstream leases reset 10-20 --to 2026-12-05T08:00:00Z --dry-run
  opstream leases reset 10-20 --to now --yes

Exit codes: 0 moved (or --dry-run), 1 the owner did not act within --wait-ms, 2 bad arguments or not
confirmed, 66 no such lease, 69 Cosmos unreachable, 78 bad settings.`,
    );
  addConfigFlags(command).action(async (leaseToken: string, flags: ResetFlags & Record<string, unknown>) => {
    const target = parseTarget(String(flags.to));
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    const waitMs = flags.waitMs !== undefined ? Number(flags.waitMs) : 3 * config.changefeed.leaseRenewIntervalMs;
    if (!Number.isInteger(waitMs) || waitMs < 0)
      throw new CliError(`--wait-ms ${flags.waitMs}: expected a whole number of milliseconds`, EXIT.usage);
    const report = await withCosmos(config, (access) => reset(access.containers, config, leaseToken, target, flags, waitMs));
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${describe(report)}\n`);
    if (report.done === false)
      throw new CliError(
        `${report.owner} did not act on the reset of lease ${leaseToken} within ${waitMs} ms (an instance of an older build ignores it); the request stays on the lease`,
        EXIT.failure,
      );
  });
}

function parseTarget(to: string): ResetTarget {
  if (to === 'beginning' || to === 'now') return to;
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(to) ? Date.parse(to) : NaN;
  if (Number.isNaN(ms))
    throw new CliError(`--to ${to}: expected beginning, now, or an ISO 8601 time such as 2026-12-05T08:00:00Z`, EXIT.usage);
  return { time: new Date(ms) };
}

async function reset(
  containers: OpstreamContainers,
  config: OpstreamConfig,
  leaseToken: string,
  target: ResetTarget,
  flags: ResetFlags,
  waitMs: number,
): Promise<ResetReport> {
  const address = {
    feedContainer: containers.operations,
    leaseContainer: containers.leases,
    processorName: config.changefeed.name,
    leaseToken,
  };
  const to = typeof target === 'string' ? target : target.time.toISOString();
  for (let attempt = 0; attempt < 5; attempt++) {
    const lease = await readLease(address);
    if (!lease)
      throw new CliError(`no lease "${leaseToken}" of processor "${config.changefeed.name}"; "opstream leases" lists them`, EXIT.noInput);
    const action = resetAction(lease, Date.now(), config.changefeed.leaseExpirationMs);
    const continuation = await continuationAt(containers.operations, lease, target);
    const report: ResetReport = {
      leaseToken,
      dryRun: Boolean(flags.dryRun),
      action: action.kind,
      owner: lease.Owner ?? null,
      to,
      from: lease.ContinuationToken ?? null,
      continuation,
    };
    if (flags.dryRun) return report;
    if (attempt === 0) {
      const what =
        action.kind === 'write'
          ? `move lease ${leaseToken} to ${to} (nobody reads it)`
          : `ask ${action.owner} to restart lease ${leaseToken} at ${to}`;
      if (!(await confirmChange(what, flags))) throw new CliError('nothing changed', EXIT.usage);
    }
    const written = await writeReset(containers.leases, lease, action, continuation, Date.now());
    if (written === 'changed') continue; // renewed or taken meanwhile: decide again
    if (action.kind === 'write') return { ...report, done: true };
    if (flags.wait === false) return report;
    return { ...report, done: await waitForReset(address, waitMs) };
  }
  throw new CliError(`lease ${leaseToken} kept changing while being written; try again`, EXIT.failure);
}

/**
 * True once the request is gone from the lease: only the owner's release (with the new position)
 * and an acquisition by another instance (which applies the position in its acquiring write) remove it.
 */
async function waitForReset(address: Parameters<typeof readLease>[0], waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lease: LeaseDocument | undefined = await readLease(address);
    if (!lease) return false;
    if (lease.properties?.continuationResetTo === undefined) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(10, deadline - Date.now()))));
  }
}

function describe(r: ResetReport): string {
  const where = `${r.continuation ?? 'the beginning'} (was ${r.from ?? 'the beginning'})`;
  if (r.dryRun)
    return r.action === 'write'
      ? `would move lease ${r.leaseToken} to ${r.to}: continuation ${where}`
      : `would ask ${r.owner} to restart lease ${r.leaseToken} at ${r.to}: continuation ${where}`;
  if (r.action === 'write') return `moved lease ${r.leaseToken} to ${r.to}: continuation ${where}`;
  if (r.done === undefined) return `asked ${r.owner} to restart lease ${r.leaseToken} at ${r.to}: continuation ${where}`;
  return `lease ${r.leaseToken} restarted at ${r.to} by ${r.owner}: continuation ${where}`;
}

import { Command } from 'commander';
import { leaseHandOver, type LeaseDocument } from '@opstream/changefeed';

const { handOverAction, readLease, writeHandOver } = leaseHandOver;
type HandOverAction = ReturnType<typeof handOverAction>;
import type { OpstreamConfig } from '../../config/config-types';
import type { OpstreamContainers } from '../../cosmos';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED } from '../config-flags';
import { confirmChange, type ChangeFlags } from '../confirm';
import { withCosmos } from '../cosmos-access';
import { CliError, EXIT } from '../exit-codes';

interface ReleaseFlags extends ChangeFlags {
  json?: boolean;
  wait?: boolean;
  waitMs?: string;
}

/** What `leases release` did (or would do), as `--json` prints it. */
interface ReleaseReport {
  leaseToken: string;
  dryRun: boolean;
  /** none: nobody owned it; release: its owner's lease had expired, released directly; request: the owner was asked; pending: asked before. */
  action: HandOverAction['kind'];
  /** The owner before. */
  owner: string | null;
  /** Who holds it now, when waited for (null: released, nobody took it yet). */
  newOwner?: string | null;
  /** The owner gave it up within --wait-ms (or it was released directly). */
  handedOver?: boolean;
}

/**
 * `opstream leases release <lease>`: hands a range to another instance without deleting a pod.
 * The request goes through the lease document (lease/hand-over.ts of the change feed package): the
 * owner releases at its next renewal, after writing its last checkpoint, so no two instances read
 * the range at once; a lease whose owner is gone (expired) is released directly.
 */
export function registerLeasesRelease(leases: Command): void {
  const command = leases
    .command('release')
    .description('hand a lease (feed range) over to another instance: its owner releases it at its next renewal')
    .argument('<lease>', 'lease token, as "opstream leases" lists it (LEASE column)')
    .option('--dry-run', 'say what would be done, change nothing')
    .option('--json', 'print what was done as JSON')
    .option('--yes', 'do it without asking (needed when not on a terminal)')
    .option('--no-wait', 'return once the request is written, without waiting for the owner to hand the lease over')
    .option('--wait-ms <ms>', 'how long to wait for the hand-over (default: 3 lease renewal intervals plus one acquire interval)')
    .addHelpText(
      'after',
      `
The owner (an instance of this build) sees the request at its next lease write, at most
changefeed.leaseRenewIntervalMs later; it stops reading the range, writes its checkpoint and releases
the lease, which another instance takes at its next balancing cycle (the releasing instance leaves it
alone for changefeed.leaseExpirationMs). A lease whose owner's lease expired (the owner is gone) is
released at once; an unowned one is left as it is. The request stays on the lease until an owner
honours it or another instance takes the lease.

Exit codes: 0 handed over (or nothing to do), 1 not handed over within --wait-ms, 2 bad arguments or
not confirmed, 66 no such lease, 69 Cosmos unreachable, 78 bad settings.`,
    );
  addConfigFlags(command).action(async (leaseToken: string, flags: ReleaseFlags & Record<string, unknown>) => {
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    const waitMs = flags.waitMs !== undefined ? Number(flags.waitMs) : defaultWaitMs(config);
    if (!Number.isInteger(waitMs) || waitMs < 0)
      throw new CliError(`--wait-ms ${flags.waitMs}: expected a whole number of milliseconds`, EXIT.usage);
    const report = await withCosmos(config, (access) => release(access.containers, config, leaseToken, flags, waitMs));
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${describe(report)}\n`);
    if (report.handedOver === false) {
      throw new CliError(
        `${report.owner} did not hand lease ${leaseToken} over within ${waitMs} ms (an instance of an older build, or not an opstream processor, ignores the request; a stuck one loses the lease when it stops renewing); the request stays on the lease`,
        EXIT.failure,
      );
    }
  });
}

/** Long enough for the owner's next renewal and another instance's next balancing cycle. */
function defaultWaitMs(config: OpstreamConfig): number {
  return 3 * config.changefeed.leaseRenewIntervalMs + config.changefeed.leaseAcquireIntervalMs;
}

async function release(
  containers: OpstreamContainers,
  config: OpstreamConfig,
  leaseToken: string,
  flags: ReleaseFlags,
  waitMs: number,
): Promise<ReleaseReport> {
  const address = {
    feedContainer: containers.operations,
    leaseContainer: containers.leases,
    processorName: config.changefeed.name,
    leaseToken,
  };
  const expiration = config.changefeed.leaseExpirationMs;
  for (let attempt = 0; attempt < 5; attempt++) {
    const lease = await readLease(address);
    if (!lease)
      throw new CliError(`no lease "${leaseToken}" of processor "${config.changefeed.name}"; "opstream leases" lists them`, EXIT.noInput);
    const action = handOverAction(lease, Date.now(), expiration);
    const report: ReleaseReport = { leaseToken, dryRun: Boolean(flags.dryRun), action: action.kind, owner: lease.Owner ?? null };
    if (flags.dryRun || action.kind === 'none') return report;
    if (action.kind === 'release' || action.kind === 'request') {
      const what =
        action.kind === 'release'
          ? `release lease ${leaseToken} (its owner ${action.owner} stopped renewing it)`
          : `ask ${action.owner} to hand lease ${leaseToken} over`;
      if (attempt === 0 && !(await confirmChange(what, flags))) throw new CliError('nothing changed', EXIT.usage);
      const written = await writeHandOver(containers.leases, lease, action, Date.now());
      if (written === 'changed') continue; // renewed or taken meanwhile: decide again on what is there now
    }
    if (flags.wait === false) return report;
    const after = await waitForHandOver(address, lease.Owner ?? null, waitMs);
    return { ...report, newOwner: after?.Owner ?? null, handedOver: after !== undefined };
  }
  throw new CliError(`lease ${leaseToken} kept changing while being written; try again`, EXIT.failure);
}

/** The lease once its old owner no longer holds it (released, then maybe taken), or undefined after `waitMs`. */
async function waitForHandOver(
  address: Parameters<typeof readLease>[0],
  oldOwner: string | null,
  waitMs: number,
): Promise<LeaseDocument | undefined> {
  const deadline = Date.now() + waitMs;
  let released: LeaseDocument | undefined;
  for (;;) {
    const lease = await readLease(address);
    if (!lease) return undefined;
    if (lease.Owner !== oldOwner) {
      // Released: wait on (within the deadline) for the instance that takes it, to name it.
      released = lease;
      if (lease.Owner) return lease;
    }
    if (Date.now() >= deadline) return released;
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(10, deadline - Date.now()))));
  }
}

function describe(r: ReleaseReport): string {
  const lease = `lease ${r.leaseToken}`;
  if (r.action === 'none') return `${lease} has no owner; any instance takes it at its next balancing cycle`;
  const did =
    r.action === 'release'
      ? `${r.dryRun ? 'would release' : 'released'} ${lease}: its owner ${r.owner} had stopped renewing it`
      : r.action === 'pending'
        ? `${lease}: ${r.owner} was already asked to hand it over`
        : `${r.dryRun ? 'would ask' : 'asked'} ${r.owner} to hand ${lease} over (at its next renewal, after its checkpoint)`;
  if (r.handedOver === undefined) return did;
  if (!r.handedOver) return did;
  return `${did}; ${r.newOwner ? `now owned by ${r.newOwner}` : 'released, no instance has taken it yet'}`;
}

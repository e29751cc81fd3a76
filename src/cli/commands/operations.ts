import { Command } from 'commander';
import { ownerTarget } from '../../inspect/explain/owner-trust';
import type { OperationState } from '../../domain/types.generated';
import { validate } from '../../schemas/validator';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED } from '../config-flags';
import { confirmChange, type ChangeFlags } from '../confirm';
import { CliError, EXIT } from '../exit-codes';
import { explainWithSettings, originOf, trustedOps } from './explain';

/** How long the owner may take to answer a nudge. */
const NUDGE_TIMEOUT_MS = 5000;

interface NudgeFlags extends ChangeFlags {
  json?: boolean;
  ownerUrl?: string;
}

/** What `operations nudge --json` prints. */
interface NudgeReport {
  operationId: string;
  dryRun: boolean;
  /** The instance that holds the operation (the lease owner of its range). */
  instance: string;
  /** Its next look was brought forward (false: not parked there, nothing to bring forward). */
  nudged: boolean;
  /** What the owner does with the operation: before the nudge with --dry-run, just after it otherwise. */
  state: OperationState;
}

/**
 * `opstream operations nudge <id>`: brings a parked operation's next look forward at the instance
 * that holds it, found as `explain` finds it (the lease of its range, the ops server address the
 * owner wrote there), through that instance's `POST /api/operations/<id>/nudge`.
 */
export function registerOperations(program: Command): void {
  const group = program.command('operations').description('act on one operation at the instance that holds it');
  const command = group
    .command('nudge')
    .description("bring a parked operation's next look (its Clusters Service check, its retry) forward to now")
    .argument('<id>', 'an operation id, the ARM id of its operation status, or the ARM id of its cluster or node pool')
    .option('--dry-run', 'show what the owner does with the operation now, change nothing')
    .option('--json', 'print the owner, whether it was nudged and the operation state as JSON')
    .option('--yes', 'nudge without asking (needed when not on a terminal)')
    .option('--owner-url <url>', "ops server of the range's owner, when the address it wrote into its lease is not reachable from here")
    .addHelpText(
      'after',
      `
The owner is reached as "opstream explain" reaches it: at the address it wrote into its lease (loopback,
or listed in ops.trustedUrls) or --owner-url, with ops.token (OPSTREAM_OPS_TOKEN). A backoff after an
error is not shortened, and an operation not parked there (handled right now, done, or not held by
that instance) is left as it is.

Exit codes: 0 nudged (or --dry-run), 1 not parked at its owner (nothing to bring forward), 2 bad
arguments or not confirmed, 66 no such operation, 69 Cosmos or the owner unreachable, 77 the owner
refused the token, 78 bad settings.`,
    );
  addConfigFlags(command).action(async (query: string, flags: NudgeFlags & Record<string, unknown>) => {
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    const ownerUrl = flags.ownerUrl === undefined ? undefined : originOf(String(flags.ownerUrl));
    const trusted = trustedOps(config.ops.trustedUrls);
    const token = config.ops.token;
    const report = await explainWithSettings(config, query, { ownerUrl, trusted });
    const owner = report.owner;
    const operationId = report.operation?.id ?? report.invalidOperation?.id ?? query;
    if (!owner) throw new CliError(`no instance holds operation ${operationId}: ${report.diagnosis}`, EXIT.unavailable);
    if (!owner.state || !owner.url) {
      const ask = owner.ask ? `; ${owner.ask}` : '';
      throw new CliError(
        `cannot reach ${owner.instance}, which holds operation ${operationId}: ${owner.error ?? 'no address'}${ask}`,
        EXIT.unavailable,
      );
    }
    const before = owner.state;
    let out: NudgeReport = { operationId, dryRun: Boolean(flags.dryRun), instance: owner.instance, nudged: false, state: before };
    if (!flags.dryRun) {
      if (!(await confirmChange(`nudge operation ${operationId} at ${owner.instance} (${describeState(before)})`, flags)))
        throw new CliError('nothing changed', EXIT.usage);
      const target = ownerTarget(owner.url, owner.url === ownerUrl, trusted);
      if (!target.ok) throw new CliError(target.reason, EXIT.usage);
      const answer = await postNudge(target.origin, operationId, token);
      out = { ...out, nudged: answer.nudged, state: answer.state };
    }
    process.stdout.write(flags.json ? `${JSON.stringify(out, null, 2)}\n` : `${describe(out)}\n`);
    if (!out.dryRun && !out.nudged)
      throw new CliError(`operation ${operationId} is not parked at ${out.instance}: nothing to bring forward`, EXIT.failure);
  });
}

async function postNudge(
  origin: string,
  operationId: string,
  token: string | undefined,
): Promise<{ nudged: boolean; state: OperationState }> {
  let res: Response;
  try {
    res = await fetch(`${origin}/api/operations/${encodeURIComponent(operationId)}/nudge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: '{}',
      redirect: 'manual',
      signal: AbortSignal.timeout(NUDGE_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new CliError(`the ops server at ${origin} did not answer (${cause})`, EXIT.unavailable, { cause: err });
  }
  const text = await res.text();
  if (res.status === 401)
    throw new CliError(
      `the ops server at ${origin} refused the token: give the instances' ops.token (OPSTREAM_OPS_TOKEN)`,
      EXIT.noPermission,
    );
  if (res.status !== 200)
    throw new CliError(`the ops server at ${origin} answered ${res.status} to the nudge (an older opstream without it?)`, EXIT.unavailable);
  const body = JSON.parse(text) as { nudged: unknown; state: unknown };
  return { nudged: body.nudged === true, state: validate('operationState', body.state) };
}

function describeState(s: OperationState): string {
  if (s.state === 'parked') return `parked${s.reason ? ` (${s.reason})` : ''}${s.dueAt ? ` until ${s.dueAt}` : ''}`;
  return s.state;
}

function describe(r: NudgeReport): string {
  if (r.dryRun) return `would nudge operation ${r.operationId} at ${r.instance}: now ${describeState(r.state)}`;
  return r.nudged
    ? `nudged operation ${r.operationId} at ${r.instance}: its next look is now (${describeState(r.state)})`
    : `operation ${r.operationId} at ${r.instance}: ${describeState(r.state)}`;
}

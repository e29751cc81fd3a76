import { Command, Option } from 'commander';
import { findDeadLetter } from '../../app/dead-letter-replay';
import { DeadLettersRepository } from '../../cosmos';
import type { DeadLetter, Stored } from '../../domain/types';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED } from '../config-flags';
import { confirmChange, type ChangeFlags } from '../confirm';
import { withCosmos } from '../cosmos-access';
import { CliError, EXIT } from '../exit-codes';

interface DiscardFlags extends ChangeFlags {
  partitionKey?: string;
  all?: boolean;
  reason?: string;
  json?: boolean;
}

/** What a discard deletes (or would): enough to find the source again. */
interface Discarded {
  id: string;
  partitionKey: string;
  reason: DeadLetter['reason'];
  source: DeadLetter['source'];
  deadLetteredAt: string;
}

const REASONS: DeadLetter['reason'][] = ['validation', 'processing', 'publication', 'unsupported'];

/**
 * `opstream dead-letters discard <id>` and `discard --all [--reason R]`: deletes dead letters the
 * operator has dealt with (or decided to drop). The source document is not touched.
 */
export function registerDeadLettersDiscard(group: Command): void {
  const command = group
    .command('discard')
    .description('delete dead letters without replaying them (their source documents are left as they are)')
    .argument('[id]', 'dead letter id (from "dead-letters list")')
    .option('--partition-key <pk>', 'partition of the dead letter, or with --all only this partition')
    .option('--all', 'discard every dead letter (narrowed by --reason and --partition-key)')
    .addOption(new Option('--reason <reason>', 'with --all, only dead letters of this reason').choices(REASONS))
    .option('--dry-run', 'list what would be discarded, delete nothing')
    .option('--json', 'print what was (or would be) discarded as JSON')
    .option('--yes', 'discard without asking (needed when not on a terminal)')
    .addHelpText(
      'after',
      `
Examples:
  opstream dead-letters discard 3f2a…
  opstream dead-letters discard --all --reason publication --dry-run
  opstream dead-letters discard --all --reason publication --yes

Exit codes: 0 discarded (or nothing to discard), 2 bad arguments or not confirmed, 66 no such dead
letter, 69 Cosmos unreachable, 78 bad settings.`,
    );
  addConfigFlags(command).action(async (id: string | undefined, flags: DiscardFlags & Record<string, unknown>) => {
    if (flags.all ? id !== undefined : id === undefined || flags.reason !== undefined) {
      throw new CliError('discard takes either one dead letter id or --all (optionally with --reason)', EXIT.usage);
    }
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    await withCosmos(config, async ({ containers }) => {
      const repo = new DeadLettersRepository(containers.deadLetters);
      const chosen =
        id !== undefined
          ? [await findDeadLetter(repo, id, flags.partitionKey)]
          : (await repo.list({ partitionKey: flags.partitionKey })).items.filter((d) => !flags.reason || d.reason === flags.reason);
      const targets = chosen.map(summary);
      if (flags.dryRun || targets.length === 0) {
        report(targets, flags, true);
        return;
      }
      const what = id !== undefined ? `discard dead letter ${id} (${chosen[0].reason})` : `discard ${targets.length} dead letter(s)`;
      if (!(await confirmChange(what, flags))) {
        process.stderr.write('nothing discarded\n');
        return;
      }
      for (const d of targets) await repo.delete(d.partitionKey, d.id);
      report(targets, flags, false);
    });
  });
}

function summary(d: Stored<DeadLetter>): Discarded {
  return { id: d.id, partitionKey: d.partitionKey, reason: d.reason, source: d.source, deadLetteredAt: d.deadLetteredAt };
}

function report(targets: Discarded[], flags: DiscardFlags, dryRun: boolean): void {
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ dryRun: Boolean(flags.dryRun), discarded: targets }, null, 2)}\n`);
    return;
  }
  const verb = dryRun && flags.dryRun ? 'would discard' : 'discarded';
  const lines = targets.map((d) => `${verb} ${d.id} (${d.reason}, ${d.source.container}/${d.source.id ?? '?'})`);
  lines.push(targets.length === 0 ? 'no dead letters to discard' : `${verb} ${targets.length} dead letter(s)`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

import { readFileSync } from 'fs';
import { Command } from 'commander';
import { findDeadLetter, replayDeadLetter, type ReplayDeps, type ReplayResult } from '../../app/dead-letter-replay';
import { CosmosRequestError, DeadLettersRepository } from '../../cosmos';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED } from '../config-flags';
import { confirmChange, type ChangeFlags } from '../confirm';
import { withCosmos } from '../cosmos-access';
import { CliError, EXIT, exitCodeFor } from '../exit-codes';
import { progress } from '../terminal';
import { topicPublisher } from '../topic-publisher';

interface ReplayFlags extends ChangeFlags {
  partitionKey?: string;
  file?: string;
  all?: boolean;
  force?: boolean;
  json?: boolean;
}

/**
 * `opstream dead-letters replay <id> [--file FIXED.json]` and `replay --all`: validate, write the
 * document back into its source container (the pipeline reads it again from the change feed),
 * delete the dead letter. Several replays show a progress line on a terminal.
 */
export function registerDeadLettersReplay(group: Command): void {
  const command = group
    .command('replay')
    .description(
      'write a dead-lettered document (or a fixed version) back into its source container so the pipeline processes it again, then delete the dead letter',
    )
    .argument('[id]', 'dead letter id (from "dead-letters list")')
    .option('--partition-key <pk>', 'partition of the dead letter (faster; default: looked up across partitions)')
    .option('--file <fixed.json>', 'replay this document instead of the stored one (e.g. "dead-letters show ID" output, corrected)')
    .option('--all', 'replay every dead letter with its stored document (those still invalid are reported and kept)')
    .option('--force', 'overwrite the source document even if it changed since it was dead-lettered')
    .option('--dry-run', 'validate and say what would be replayed, write nothing')
    .option('--json', 'print the results as JSON')
    .option('--yes', 'replay without asking (needed when not on a terminal)')
    .addHelpText(
      'after',
      `
Every reason can be replayed. A document from Operations (reasons validation, processing,
unsupported) is written back there. An Operation event its topic did not take (reason publication)
is published to that topic, with the message id and session it was meant to have, through the
serviceBus.* settings (OPSTREAM_SERVICE_BUS_CONNECTION_STRING or OPSTREAM_SERVICE_BUS_NAMESPACE).

The document is validated with its schema first: one that is still invalid is not written, and the
dead letter is kept. The source document is replaced only if it is still the version that was
dead-lettered (otherwise: exit 1, use --force after checking it).

Examples:
  opstream dead-letters show 3f2a… > fix.json     # edit fix.json
  opstream dead-letters replay 3f2a… --file fix.json
  opstream dead-letters replay --all --dry-run
  opstream dead-letters replay --all --yes

Off a terminal nothing is written without --yes; --dry-run validates and writes nothing.

Exit codes: 0 replayed, 1 some replays failed or the source document changed, 2 bad arguments or not confirmed,
65 the document is still invalid, 66 no such dead letter or file, 69 Cosmos unreachable, 78 bad settings.`,
    );
  addConfigFlags(command).action(async (id: string | undefined, flags: ReplayFlags & Record<string, unknown>) => {
    if (flags.all ? id !== undefined || flags.file !== undefined : id === undefined) {
      throw new CliError('replay takes either one dead letter id (optionally with --file) or --all', EXIT.usage);
    }
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    const fixed = flags.file !== undefined ? readFixedDocument(flags.file) : undefined;
    const publisher = topicPublisher(config);
    await withCosmos(config, async ({ containers }) => {
      const deps: ReplayDeps = {
        deadLetters: new DeadLettersRepository(containers.deadLetters),
        sources: { Operations: containers.operations },
        publish: publisher && ((topic, message) => publisher.publish(topic, message)),
      };
      if (id !== undefined) {
        const found = await findDeadLetter(deps.deadLetters, id, flags.partitionKey);
        // Checked first: a document that is still invalid is said so (exit 65) before anything is asked.
        const checked = await replayDeadLetter(deps, found, { fixed, force: flags.force, dryRun: true });
        const result =
          flags.dryRun || !(await confirmReplay(`replay dead letter ${id} (${found.reason}) into ${found.source.container}`, flags))
            ? checked
            : await replayDeadLetter(deps, found, { fixed, force: flags.force });
        process.stdout.write(
          flags.json ? `${JSON.stringify({ dryRun: Boolean(flags.dryRun), ...result }, null, 2)}\n` : `${describe(result)}\n`,
        );
        return;
      }
      await replayAll(deps, flags);
    }).finally(() => publisher?.close());
  });
}

async function replayAll(deps: ReplayDeps, flags: ReplayFlags): Promise<void> {
  const { items } = await deps.deadLetters.list({ partitionKey: flags.partitionKey });
  items.sort((a, b) => a.deadLetteredAt.localeCompare(b.deadLetteredAt));
  const dryRun = Boolean(flags.dryRun);
  if (!dryRun && items.length > 0 && !(await confirmReplay(`replay ${items.length} dead letter(s)`, flags))) return;
  const bar = progress(process.stderr);
  const replayed: ReplayResult[] = [];
  const kept: Array<{ deadLetterId: string; error: string }> = [];
  for (const [i, deadLetter] of items.entries()) {
    bar.update(i, items.length, `${dryRun ? 'checking' : 'replaying'} ${deadLetter.id}`);
    try {
      const result = await replayDeadLetter(deps, deadLetter, { force: flags.force, dryRun });
      replayed.push(result);
      bar.log(describe(result));
    } catch (err) {
      // Cosmos itself failing ends the run (mapped to exit 69); a bad dead letter is only skipped.
      if ((err instanceof CosmosRequestError && err.retriable) || exitCodeFor(err) === EXIT.unavailable) throw err;
      const error = (err as Error).message.replace(`dead letter ${deadLetter.id}: `, '');
      kept.push({ deadLetterId: deadLetter.id, error });
      bar.log(`kept ${deadLetter.id}: ${error}`);
    }
  }
  bar.update(items.length, items.length, 'done');
  bar.end();
  const failed = kept.length;
  process.stdout.write(
    flags.json
      ? `${JSON.stringify({ dryRun, replayed, kept }, null, 2)}\n`
      : `${dryRun ? 'would replay' : 'replayed'} ${items.length - failed} of ${items.length} dead letter(s)${failed ? `; ${failed} kept (see above)` : ''}\n`,
  );
  if (failed) throw new CliError(`${failed} dead letter(s) could not be replayed`, EXIT.failure);
}

function readFixedDocument(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --file ${file}: ${(err as Error).message}`, EXIT.noInput);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliError(`--file ${file} is not JSON: ${(err as Error).message}`, EXIT.dataErr);
  }
}

/** Asks (or takes --yes); a "no" on a terminal changes nothing and says so. */
async function confirmReplay(what: string, flags: ReplayFlags): Promise<boolean> {
  if (await confirmChange(what, flags)) return true;
  process.stderr.write('nothing replayed\n');
  return false;
}

function describe(r: ReplayResult): string {
  if (r.write === 'checked')
    return `would replay ${r.deadLetterId}: valid; ${r.container}/${r.documentId} (partition ${r.partitionKey}) would be ${r.container.startsWith('topic:') ? 'published' : 'written back'}`;
  if (r.write === 'published')
    return `replayed ${r.deadLetterId}: the event of Operation ${r.documentId} (partition ${r.partitionKey}) is published to ${r.container}; the dead letter is deleted`;
  return `replayed ${r.deadLetterId}: ${r.container}/${r.documentId} (partition ${r.partitionKey}) ${r.write}; the dead letter is deleted and the pipeline will process the document again`;
}

import { Command } from 'commander';
import { findDeadLetter } from '../../app/dead-letter-replay';
import { DeadLettersRepository } from '../../cosmos';
import type { DeadLetter, Stored } from '../../domain/types';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED } from '../config-flags';
import { withCosmos } from '../cosmos-access';
import { formatTable } from '../table';
import { registerDeadLettersDiscard } from './dead-letters-discard';
import { registerDeadLettersReplay } from './dead-letters-replay';

/**
 * `opstream dead-letters list|show|replay|discard`: the documents the pipeline set aside (DeadLetters
 * container), read straight from Cosmos with the settings `run` takes.
 */
export function registerDeadLetters(program: Command): void {
  const group = program
    .command('dead-letters')
    .description('list, show, replay and discard documents the pipeline could not process (the DeadLetters container)');

  const list = group
    .command('list')
    .description('list dead letters, newest first: id, source document, reason, error')
    .option('--json', 'print the dead-letter documents (original document included) as a JSON array')
    .option('--partition-key <pk>', 'only this partition (a lower-cased subscription id)')
    .addHelpText('after', '\nExit codes: 0 listed (also when there are none), 69 Cosmos unreachable, 78 bad or missing settings.');
  addConfigFlags(list).action(async (flags: Record<string, unknown>) => {
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    const { items, invalid } = await withCosmos(config, ({ containers }) =>
      new DeadLettersRepository(containers.deadLetters).list({ partitionKey: flags.partitionKey as string | undefined }),
    );
    items.sort((a, b) => b.deadLetteredAt.localeCompare(a.deadLetteredAt));
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    } else {
      process.stdout.write(`${items.length ? deadLetterTable(items) : 'no dead letters'}\n`);
    }
    if (invalid.length)
      process.stderr.write(`${invalid.length} document(s) in DeadLetters do not match the dead-letter schema and were skipped\n`);
  });

  const show = group
    .command('show')
    .description('print the original document of a dead letter as JSON (to fix it and replay it with --file)')
    .argument('<id>', 'dead letter id (from "dead-letters list")')
    .option('--partition-key <pk>', 'partition of the dead letter (faster; default: looked up across partitions)')
    .option('--full', 'print the whole dead letter (source, reason, error), not only the document')
    .addHelpText(
      'after',
      '\nExample:\n  opstream dead-letters show 3f2a… > fix.json && $EDITOR fix.json && opstream dead-letters replay 3f2a… --file fix.json\n\nExit codes: 0 shown, 66 no such dead letter, 69 Cosmos unreachable, 78 bad or missing settings.',
    );
  addConfigFlags(show).action(async (id: string, flags: Record<string, unknown>) => {
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    const found = await withCosmos(config, ({ containers }) =>
      findDeadLetter(new DeadLettersRepository(containers.deadLetters), id, flags.partitionKey as string | undefined),
    );
    process.stdout.write(`${JSON.stringify(flags.full ? found : found.document, null, 2)}\n`);
    if (found.truncated && !flags.full) {
      const where = `${found.source.container}/${found.source.id ?? '?'} in partition ${found.source.partitionKey ?? '?'}`;
      process.stderr.write(
        `note: this is a cut copy (${found.truncated.keptBytes} of ${found.truncated.originalBytes} bytes; cut: ${found.truncated.cut.join(', ')}); the whole document is ${where}, if it is still there\n`,
      );
    }
  });

  registerDeadLettersReplay(group);
  registerDeadLettersDiscard(group);
}

function deadLetterTable(items: Stored<DeadLetter>[]): string {
  const width = process.stdout.isTTY ? Math.max(30, (process.stdout.columns ?? 120) - 100) : 200;
  return formatTable(items, [
    { header: 'ID', value: (d) => d.id },
    { header: 'SOURCE', value: (d) => `${d.source.container}/${d.source.id ?? '?'}` },
    { header: 'REASON', value: (d) => d.reason },
    { header: 'AT', value: (d) => d.deadLetteredAt.replace(/\.\d+Z$/, 'Z') },
    { header: 'ERROR', value: (d) => truncate(`${d.error.message}${d.error.path ? ` (at ${d.error.path})` : ''}`, width) },
  ]);
}

function truncate(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

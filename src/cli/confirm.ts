import { createInterface } from 'readline/promises';
import { CliError, EXIT } from './exit-codes';

/** The flags every command that changes state takes. */
export interface ChangeFlags {
  /** Show what would change, change nothing. */
  dryRun?: boolean;
  /** Confirm without asking. */
  yes?: boolean;
}

/**
 * Whether to go on with a change `what` describes: `--yes` goes on; on a terminal the operator is
 * asked (y/N); anything else (a script, a pipe) is refused with the flag that confirms, so a
 * command that changes state never does so unasked.
 */
export async function confirmChange(what: string, flags: ChangeFlags, input: NodeJS.ReadStream = process.stdin): Promise<boolean> {
  if (flags.yes) return true;
  if (!input.isTTY) {
    throw new CliError(`${what}: not confirmed; pass --yes to confirm without a terminal (or --dry-run to only show it)`, EXIT.usage);
  }
  const rl = createInterface({ input, output: process.stderr });
  try {
    const answer = await rl.question(`${what}. Go on? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

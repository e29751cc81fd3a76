#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands';
import { EXIT, exitCodeFor } from './exit-codes';
import { version } from '../util/version';
import { redactString } from '../logging/redact';

/** The `opstream` CLI. Each subcommand lives in `./commands/<name>.ts` and is listed in `./commands/index.ts`. */
export function buildProgram(): Command {
  const program = new Command('opstream')
    .description('Change-feed event processor for Azure resource provider asynchronous operations')
    .version(version)
    .showHelpAfterError()
    .exitOverride();
  registerCommands(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander has printed the problem; its failures are all usage errors (unknown command or
      // option, missing or invalid argument), --help and --version exit 0.
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    // Masked as log lines are: a message may quote a URL with credentials in it.
    process.stderr.write(`opstream: ${redactString(message)}\n`);
    process.exitCode = exitCodeFor(err);
  }
}

if (require.main === module) void main(process.argv);

#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands';
import { exitCodeFor } from './exit-codes';
import { version } from '../version';

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
      process.exitCode = err.exitCode;
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`opstream: ${message}\n`);
    process.exitCode = exitCodeFor(err);
  }
}

if (require.main === module) void main(process.argv);

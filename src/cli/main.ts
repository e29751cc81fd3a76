#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands';
import { EXIT, exitCodeFor } from './exit-codes';
import { version } from '../util/version';
import { redactString } from '../logging/redact';
import { nearest } from '../config/nearest-setting';

/** The `opstream` CLI. Each subcommand lives in `./commands/<name>.ts` and is listed in `./commands/index.ts`. */
export function buildProgram(): Command {
  const program = new Command('opstream')
    .description('Change-feed event processor for Azure resource provider asynchronous operations')
    .version(version)
    // Each command's options are its own: `leases --json` and `leases release <lease> --json` both work
    // (without, a parent consumes an option it shares with a subcommand).
    .enablePositionalOptions()
    .exitOverride();
  registerCommands(program);
  hintHelpAfterErrors(program, ['opstream']);
  return program;
}

/** A usage error prints one line and where to look, not the whole help (which --help-all makes long). */
function hintHelpAfterErrors(command: Command, path: string[]): void {
  command.showHelpAfterError(`(${path.join(' ')} --help lists its options)`);
  command.configureOutput({ outputError: (text, write) => write(withSuggestion(text, command)) });
  for (const sub of command.commands) hintHelpAfterErrors(sub, [...path, sub.name()]);
}

/**
 * commander suggests a near flag among those --help shows; the settings --help leaves to --help-all
 * are options all the same, so a misspelt one is suggested too.
 */
function withSuggestion(text: string, command: Command): string {
  const unknown = /^error: unknown option '(--[^']+)'\n$/.exec(text);
  if (!unknown) return text;
  const flags = command.options.flatMap((o) => (o.long ? [o.long] : []));
  const near = nearest(unknown[1], flags);
  return near ? `${text}(Did you mean ${near}?)\n` : text;
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

/** What every bench program's command line and progress lines share. */
import { Command, InvalidArgumentError } from 'commander';

/**
 * A bench program's command line, parsed by commander as the CLI's are: `--help` explains every
 * option; a wrong one (unknown, invalid value, missing argument) is refused in one line on stderr
 * with exit code 2, a usage error as in the CLI (commander's own would be 1, a failed run's code).
 */
export function benchCommand(name: string, description: string): Command {
  return new Command(name).description(description).exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
}

/** A whole number of runs, rounds or items (at least 1), e.g. `--runs <n>`. */
export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number, 1 or more');
  return n;
}

/** A number above 0, e.g. a scale factor or a duration. */
export function positive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number');
  return n;
}

/** Progress to stderr as `[label hh:mm:ss] message` (stdout is kept for the results). */
export function progressLog(label: string): (message: string) => void {
  return (message) => process.stderr.write(`[${label} ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

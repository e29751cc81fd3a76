import { Command, CommanderError, InvalidArgumentError } from 'commander';

/**
 * What the stand-ins' command lines share: their bins (`opstream-cosmos-emulator`, …) and
 * `opstream emulator …` run the same commander definitions, so a flag means the same in both.
 */

/** Exit codes (BSD sysexits where one fits), the same opstream's own CLI uses. */
export const EXIT = Object.freeze({ ok: 0, failure: 1, usage: 2, unavailable: 69, config: 78 });

/** A commander parser for an integer flag within bounds, with a message naming the flag. */
export function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}.`);
    return n;
  };
}

/**
 * `--role-assignment <object id>=<role>` of the emulators under Entra ID: repeated, collected, then
 * grouped by principal as their `entraId.roleAssignments` option takes them.
 */
export function collectRoleAssignment(example: string) {
  return (value: string, all: string[]): string[] => {
    if (!/^[^=]+=.+$/.test(value))
      throw new InvalidArgumentError(`--role-assignment takes <principal object id>=<role name or id>, e.g. ${example}`);
    return [...all, value];
  };
}

/** The collected values by object id; undefined when none was given. */
export function roleAssignments(values: string[]): Record<string, string[]> | undefined {
  if (values.length === 0) return undefined;
  const out: Record<string, string[]> = {};
  for (const v of values) {
    const i = v.indexOf('=');
    (out[v.slice(0, i)] ??= []).push(v.slice(i + 1));
  }
  return out;
}

/** An error the command line reports in one line and exits with `exitCode`. */
export function failure(message: string, exitCode: number): Error {
  return Object.assign(new Error(message), { exitCode });
}

/** Serves until SIGINT/SIGTERM, then closes; a failing close sets exit code 1. */
export function serveUntilSignal(label: string, close: () => Promise<void>, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      out.write(`${label}: ${signal}, shutting down\n`);
      void close().then(resolve, (err: unknown) => {
        process.stderr.write(`${label}: error while closing: ${String(err)}\n`);
        process.exitCode = EXIT.failure;
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Runs a stand-in's command as a program: usage errors exit 2, failures print one line and exit with their code. */
export async function runAsProgram(command: Command, argv: string[] = process.argv): Promise<void> {
  command.exitOverride().showHelpAfterError();
  try {
    await command.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    process.stderr.write(`${command.name()}: ${err instanceof Error ? err.message : String(err)}\n`);
    const code = err && typeof err === 'object' && 'exitCode' in err ? (err as { exitCode: unknown }).exitCode : undefined;
    process.exitCode = typeof code === 'number' ? code : EXIT.failure;
  }
}

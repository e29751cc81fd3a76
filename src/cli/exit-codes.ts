import { ReplayError } from '../app/dead-letter-replay';

/**
 * Meaningful exit codes (BSD sysexits where one fits): scripts and supervisors can tell a bad
 * setting from a failing dependency, a wrong argument from a document that is still invalid.
 */
export const EXIT = Object.freeze({
  ok: 0,
  /** Anything else went wrong (a failed replay among several, an unexpected error). */
  failure: 1,
  /** Wrong command line: unknown option or stream, conflicting flags. */
  usage: 2,
  dataErr: 65, // EX_DATAERR: a document (e.g. a fixed dead letter) still fails validation
  noInput: 66, // EX_NOINPUT: the named dead letter or file does not exist
  unavailable: 69, // EX_UNAVAILABLE: a dependency (Cosmos, CS, the ops server) could not be reached
  noPermission: 77, // EX_NOPERM: the ops server refused the token
  config: 78, // EX_CONFIG
});

/** Errors may carry their own `exitCode`; a failed replay says why by its kind; anything else is a plain failure. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof ReplayError) return err.kind === 'not-found' ? EXIT.noInput : err.kind === 'invalid' ? EXIT.dataErr : EXIT.failure;
  if (err && typeof err === 'object' && 'exitCode' in err && typeof (err as { exitCode: unknown }).exitCode === 'number') {
    return (err as { exitCode: number }).exitCode;
  }
  return EXIT.failure;
}

/** A command failed in a way the operator can act on: `main` prints the message (one line) and exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

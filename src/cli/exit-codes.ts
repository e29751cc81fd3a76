/** Meaningful exit codes: scripts and supervisors can tell a bad setting from a failing dependency. */
export const EXIT = Object.freeze({
  ok: 0,
  failure: 1,
  usage: 2,
  config: 78, // EX_CONFIG
  unavailable: 69, // EX_UNAVAILABLE: a dependency (Cosmos, CS) could not be reached
});

/** Errors may carry their own `exitCode`; anything else is a plain failure. */
export function exitCodeFor(err: unknown): number {
  if (err && typeof err === 'object' && 'exitCode' in err && typeof (err as { exitCode: unknown }).exitCode === 'number') {
    return (err as { exitCode: number }).exitCode;
  }
  return EXIT.failure;
}

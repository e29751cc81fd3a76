/** What every bench program's command line and progress lines share. */

/** The value after `--name` on the command line, if given. */
export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Progress to stderr as `[label hh:mm:ss] message` (stdout is kept for the results). */
export function progressLog(label: string): (message: string) => void {
  return (message) => process.stderr.write(`[${label} ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** A whole number of runs or rounds given as `--name N` (at least 1), or `fallback`; anything else stops the program with a clear message. */
export function countArg(name: string, fallback: number): number {
  const given = argValue(name);
  const n = given === undefined ? fallback : Number(given);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`${name} takes a whole number, 1 or more (got ${given})\n`);
    process.exit(2);
  }
  return n;
}

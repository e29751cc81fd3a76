import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * One stand-in per data directory: a second one would interleave journals. The lock is a pid file
 * (`lockFile` in `dir`); a lock left by a process that no longer exists (kill -9) is taken over.
 * `what` names the stand-in in the refusal.
 */
export function lockDirectory(dir: string, lockFile: string, what: string): void {
  const file = path.join(dir, lockFile);
  let holder: number | undefined;
  try {
    holder = Number(fs.readFileSync(file, 'utf8').trim());
  } catch {
    holder = undefined; // no lock yet
  }
  if (holder !== undefined && Number.isInteger(holder) && holder > 0 && holder !== process.pid && processExists(holder)) {
    throw new Error(`the data directory ${dir} is in use by another ${what} (pid ${holder})`);
  }
  fs.writeFileSync(file, String(process.pid));
}

/** Removes the lock if this process holds it. */
export function unlockDirectory(dir: string, lockFile: string): void {
  try {
    const file = path.join(dir, lockFile);
    if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
  } catch {
    // already gone
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

import { readFileSync, statSync } from 'node:fs';

/**
 * A bearer token kept in a file (a mounted Kubernetes secret), re-read when the file changes: a
 * rotated secret is picked up without a restart. Kubernetes swaps the file behind a symlink, so the
 * check compares the target's inode, size and modification time, at most once per `checkEveryMs`.
 * A file that cannot be read at start is a configuration error; one that vanishes later keeps the
 * last token (a rotation in progress) and is retried at the next check.
 */
export function tokenFromFile(file: string, checkEveryMs = 1_000, now: () => number = Date.now): () => string {
  let token = read(file);
  let seen = signature(file);
  let checkedAt = now();
  return () => {
    if (now() - checkedAt < checkEveryMs) return token;
    checkedAt = now();
    try {
      const current = signature(file);
      if (current !== seen) {
        token = read(file);
        seen = current;
      }
    } catch {
      // keep the last token: the file is being replaced
    }
    return token;
  };
}

function signature(file: string): string {
  const s = statSync(file);
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
}

function read(file: string): string {
  const token = readFileSync(file, 'utf8').trim();
  if (token === '') throw new Error(`the Clusters Service token file ${file} is empty`);
  return token;
}

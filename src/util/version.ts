import { readFileSync, statSync } from 'fs';
import { dirname, join, resolve } from 'path';

/** opstream's version, from package.json (found from both src/util/ and dist/src/util/). */
function readVersion(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      return (JSON.parse(readFileSync(join(__dirname, rel), 'utf8')) as { version: string }).version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

/**
 * The commit this build came from: `OPSTREAM_BUILD_COMMIT` (the image sets it from its build
 * argument), else the checkout's HEAD read from `.git` (a work tree or a linked worktree), else
 * `unknown`. Read once, without running git.
 */
export function readCommit(env: NodeJS.ProcessEnv = process.env, from = __dirname): string {
  if (env.OPSTREAM_BUILD_COMMIT) return env.OPSTREAM_BUILD_COMMIT;
  for (const rel of ['../..', '../../..']) {
    try {
      return headOf(join(resolve(from, rel), '.git'));
    } catch {
      // not a checkout there
    }
  }
  return 'unknown';
}

/** `.git` is the git directory itself in an ordinary clone, a `gitdir:` pointer file in a linked worktree. */
function headOf(dotGit: string): string {
  if (statSync(dotGit).isDirectory()) return resolveHead(dotGit);
  const pointer = readFileSync(dotGit, 'utf8');
  if (!pointer.startsWith('gitdir:')) throw new Error(`${dotGit} is neither a git directory nor a gitdir pointer`);
  return resolveHead(resolve(dirname(dotGit), pointer.slice('gitdir:'.length).trim()));
}

function resolveHead(gitDir: string): string {
  const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
  if (!head.startsWith('ref: ')) return head;
  const ref = head.slice(5);
  // A linked worktree keeps its refs in the common directory.
  const dirs = [gitDir];
  try {
    dirs.push(resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim()));
  } catch {
    // a plain repository
  }
  for (const dir of dirs) {
    try {
      return readFileSync(join(dir, ref), 'utf8').trim();
    } catch {
      // try packed refs below
    }
    try {
      const line = readFileSync(join(dir, 'packed-refs'), 'utf8')
        .split('\n')
        .find((l) => l.endsWith(` ${ref}`));
      if (line) return line.split(' ')[0] as string;
    } catch {
      // next directory
    }
  }
  throw new Error(`cannot resolve ${ref}`);
}

export const version = readVersion();
export const commit = readCommit();

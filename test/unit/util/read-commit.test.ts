import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { readCommit } from '../../../src/util/version';

/**
 * opstream_build_info{commit}: the build's commit from OPSTREAM_BUILD_COMMIT, else from the checkout's
 * `.git` — a directory in an ordinary clone, a `gitdir:` file in a linked worktree — else `unknown`.
 */
const SHA = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);

describe('readCommit', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'opstream-commit-'));
    mkdirSync(join(root, 'dist', 'src'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const fromDist = (): string => join(root, 'dist', 'src', 'util');

  function clone(dir: string, ref: string | undefined, packed = false): void {
    mkdirSync(join(dir, 'refs', 'heads'), { recursive: true });
    writeFileSync(join(dir, 'HEAD'), ref ? 'ref: refs/heads/main\n' : `${SHA}\n`);
    if (ref && packed) writeFileSync(join(dir, 'packed-refs'), `# pack-refs with: peeled fully-peeled sorted\n${ref} refs/heads/main\n`);
    else if (ref) writeFileSync(join(dir, 'refs', 'heads', 'main'), `${ref}\n`);
  }

  it('reads an ordinary clone, whose .git is a directory (from dist/src, two levels below the checkout)', () => {
    clone(join(root, '.git'), SHA);
    expect(readCommit({}, fromDist())).toBe(SHA);
  });

  it('reads a branch kept in packed-refs, and a detached HEAD', () => {
    clone(join(root, '.git'), SHA, true);
    expect(readCommit({}, fromDist())).toBe(SHA);
    rmSync(join(root, '.git'), { recursive: true });
    clone(join(root, '.git'), undefined);
    expect(readCommit({}, fromDist())).toBe(SHA);
  });

  it("follows a linked worktree's gitdir pointer to its HEAD and the common directory's refs", () => {
    const common = join(root, 'main.git');
    clone(common, OTHER);
    const worktree = join(common, 'worktrees', 'w1');
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(worktree, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(worktree, 'commondir'), '../..\n');
    writeFileSync(join(root, '.git'), `gitdir: ${worktree}\n`);
    expect(readCommit({}, fromDist())).toBe(OTHER);
  });

  it('prefers OPSTREAM_BUILD_COMMIT, and says unknown without a checkout', () => {
    clone(join(root, '.git'), SHA);
    expect(readCommit({ OPSTREAM_BUILD_COMMIT: 'from-the-image' }, fromDist())).toBe('from-the-image');
    rmSync(join(root, '.git'), { recursive: true });
    expect(readCommit({}, fromDist())).toBe('unknown');
  });

  it('reads this checkout as git does', () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: join(__dirname, '..', '..', '..'), encoding: 'utf8' }).trim();
    expect(readCommit({}, join(__dirname, '..', '..', '..', 'src', 'util'))).toBe(head);
  });
});

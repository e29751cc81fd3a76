import { spawnSync } from 'child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { headerList, scriptCommands } from './shell-commands';

/**
 * The .ci/setup-* scripts run first on a fresh machine, where a missing tool must stop them with a line
 * that says what to do, not halfway through with "command not found" or, worse, a wrong answer (without
 * podman, `podman image exists` just says "no"). Each names in its header the commands it needs
 * (`# Needs:`) and those it installs (`# Installs:`); this checks the header against the code, that a
 * tool beyond Debian's essential set is checked before its first call, and, with a PATH stripped of one
 * such tool, that the script stops at once naming it.
 */
const ROOT = join(__dirname, '..', '..');
const CI = join(ROOT, '.ci');
const SCRIPTS = readdirSync(CI)
  .filter((f) => f.startsWith('setup-'))
  .sort();
// On every Debian/Ubuntu machine (Essential: yes): bash, coreutils, findutils, grep, sed, tar, gzip.
const ESSENTIAL = new Set(
  (
    'bash cat chmod cp cut date dirname env find grep gzip head id ln ls mkdir mktemp mv readlink rm sed sha256sum ' +
    'sort tail tar tee touch tr uname wc xargs'
  ).split(' '),
);

const source = (script: string): string => readFileSync(join(CI, script), 'utf8');
const which = (cmd: string): string | undefined => {
  const r = spawnSync('bash', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
};

describe.each(SCRIPTS)('.ci/%s', (script) => {
  const text = source(script);
  const needs = headerList(text, 'Needs');
  const installs = headerList(text, 'Installs');
  const found = scriptCommands(text);

  it('is valid bash', () => {
    expect(spawnSync('bash', ['-n', join(CI, script)]).status).toBe(0);
  });

  it('names in its header every command it calls, and only those', () => {
    expect(needs.all.length).toBeGreaterThan(0);
    const declared = new Set([...needs.all, ...installs.all]);
    expect([...found.external.keys()].filter((c) => !declared.has(c)).sort()).toEqual([]);
    const code = text
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n');
    expect(needs.all.filter((c) => !new RegExp(`(^|[^\\w-])${c}([^\\w-]|$)`).test(code))).toEqual([]);
    for (const called of found.scripts) expect(existsSync(join(ROOT, called))).toBe(true);
  });

  it('checks each tool beyond the essential set before its first call', () => {
    for (const cmd of needs.all.filter((c) => !ESSENTIAL.has(c))) {
      const checked = found.checked.get(cmd);
      expect({ cmd, checked: checked !== undefined }).toEqual({ cmd, checked: true });
      const called = found.external.get(cmd);
      if (called !== undefined) expect({ cmd, checkedFirst: checked! < called }).toEqual({ cmd, checkedFirst: true });
    }
    // What it installs is what apt-get installs.
    for (const cmd of installs.all) expect(text).toMatch(new RegExp(`apt-get install[^\\n]* ${cmd}( |$)`, 'm'));
  });

  // Needs with a condition (`sudo (when not root)`) are not stripped: the condition may not hold here.
  const strippable = needs.unconditional.filter((c) => !ESSENTIAL.has(c));
  const cases = strippable.length > 0 ? strippable : ['(none)'];
  it.each(cases)('stops at once, naming it, without %s', (missing) => {
    if (missing === '(none)') return;
    const bin = mkdtempSync(join(tmpdir(), 'opstream-ci-path-'));
    try {
      // Essential tools are the machine's own; the other needs are stubs (never reached: the missing one stops it).
      const allNeeds = new Set<string>();
      const collect = (s: string): void => {
        headerList(source(s), 'Needs').all.forEach((c) => allNeeds.add(c));
        scriptCommands(source(s)).scripts.forEach((p) => collect(p.replace(/^\.ci\//, '')));
      };
      collect(script);
      for (const cmd of new Set([...allNeeds, ...ESSENTIAL])) {
        if (cmd === missing) continue;
        if (ESSENTIAL.has(cmd)) {
          const real = which(cmd);
          if (real) symlinkSync(real, join(bin, cmd));
        } else {
          writeFileSync(join(bin, cmd), '#!/bin/sh\nexit 0\n');
          chmodSync(join(bin, cmd), 0o755);
        }
      }
      const home = mkdtempSync(join(tmpdir(), 'opstream-ci-home-'));
      const r = spawnSync(join(bin, 'bash'), [join(CI, script)], {
        cwd: ROOT,
        env: { PATH: bin, HOME: home, OPSTREAM_IMAGE_CACHE: join(home, 'cache'), OPSTREAM_NODE_CACHE: join(home, 'node') },
        encoding: 'utf8',
        timeout: 20_000,
      });
      rmSync(home, { recursive: true, force: true });
      expect({ status: r.status, named: r.stderr.includes(`${missing} not found`) }).toEqual({
        status: 1,
        named: true,
      });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

/**
 * .ci/setup-image-bases with an empty or a spoilt cache, against stand-ins for mmdebstrap and podman.
 * The mmdebstrap stand-in chooses its output as mmdebstrap 1.3 does: the format named by --format, else
 * guessed from the file name, a directory for a name it does not know (such as "….tar.part").
 */
describe('.ci/setup-image-bases and its cache', () => {
  let dir: string;
  let bin: string;
  const MMDEBSTRAP = `#!/bin/bash
echo "$*" >> "$FAKE_LOG/mmdebstrap"
format=""; args=()
for a in "$@"; do case "$a" in --format=*) format=\${a#--format=} ;; -*) ;; *) args+=("$a") ;; esac; done
target=\${args[1]}
[ -z "$format" ] && case "$target" in *.tar) format=tar ;; *) format=directory ;; esac
src=$(mktemp -d); mkdir -p "$src/etc"; echo bookworm > "$src/etc/debian_version"
if [ "$format" = tar ]; then tar -cf "$target" -C "$src" .; else mkdir -p "$target"; cp -a "$src/." "$target"; fi
rm -rf "$src"
`;
  const PODMAN = `#!/bin/bash
case "$1" in
  image) exit 1 ;;
  build) ctx=\${@: -1}; [ -f "$ctx/rootfs.tar" ] || { echo "no rootfs.tar in $ctx" >&2; exit 1; }; echo built >> "$FAKE_LOG/podman" ;;
esac
`;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'opstream-image-bases-'));
    bin = join(dir, 'bin');
    mkdirSync(bin);
    for (const [name, body] of [
      ['mmdebstrap', MMDEBSTRAP],
      ['podman', PODMAN],
    ]) {
      writeFileSync(join(bin, name), body);
      chmodSync(join(bin, name), 0o755);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (cache: string): { status: number | null; stdout: string; stderr: string; made: number } => {
    const log = mkdtempSync(join(dir, 'log-'));
    const r = spawnSync('bash', [join(CI, 'setup-image-bases')], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, OPSTREAM_IMAGE_CACHE: cache, FAKE_LOG: log },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const made = existsSync(join(log, 'mmdebstrap')) ? readFileSync(join(log, 'mmdebstrap'), 'utf8').trim().split('\n').length : 0;
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, made };
  };
  const entries = (cache: string): string[] => readdirSync(cache).sort();
  const isTarball = (path: string): boolean => statSync(path).isFile() && spawnSync('tar', ['-tf', path], { stdio: 'ignore' }).status === 0;

  let names: string[];
  it('makes both root file systems as tarballs in an empty cache', () => {
    const cache = join(dir, 'empty');
    const r = run(cache);
    expect(r.stderr).not.toMatch(/cp: /);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^NODE_IMAGE=\S+\nRUNTIME_IMAGE=\S+\n$/);
    names = entries(cache);
    expect(names).toHaveLength(2);
    for (const n of names) expect(isTarball(join(cache, n))).toBe(true);
  });

  it('uses a cache entry only when it is a readable tarball, else makes it again', () => {
    const cache = join(dir, 'spoilt');
    mkdirSync(cache);
    mkdirSync(join(cache, names[0])); // what the old script left: a directory named ….tar
    writeFileSync(join(cache, names[1]), 'not a tarball');
    const r = run(cache);
    expect(r.status).toBe(0);
    expect(r.made).toBe(2);
    expect(r.stderr).toMatch(/is not a readable tarball: removing it/);
    expect(entries(cache)).toEqual(names);
    for (const n of names) expect(isTarball(join(cache, n))).toBe(true);
    // Now good: the next run makes nothing.
    expect(run(cache).made).toBe(0);
  });
});

import { existsSync, readFileSync, statSync } from 'fs';
import { dirname, join, resolve, sep } from 'path';
import type { Command } from 'commander';
import { cosmosEmulatorCommand } from '@opstream/cosmos-emulator/cli';
import { serviceBusEmulatorCommand } from '@opstream/service-bus-emulator/cli';
import { buildProgram } from '../../../src/cli/main';
import { showAllSettings } from '../../../src/cli/config-flags';
import { SETTINGS } from '../../../src/config/settings';
import { DOC_PAGES, REPO_ROOT } from '../../helpers/doc-pages';

/**
 * What the README and docs/ tell a reader to open, type or set exists: relative links resolve (a
 * `#anchor` into a markdown page names one of its headings, by GitHub's rule) and stay inside the
 * repository; repository paths written as code exist; every `opstream <command> … --flag` is listed
 * by that command's `--help-all`; every `OPSTREAM_*` variable is a setting's; every `npm run X` is a script.
 */
const ROOT = REPO_ROOT;
const PAGES = DOC_PAGES;

/** Variables the docs name that are not settings, each with the file that reads it. */
const OTHER_VARIABLES: Record<string, string> = {
  OPSTREAM_BUILD_COMMIT: 'src/util/version.ts',
  OPSTREAM_CONFIG: 'src/config/load-config.ts',
  OPSTREAM_CS_SIMULATOR_ADMIN_TOKEN: 'src/cli/commands/emulator-clusters-service.ts',
  OPSTREAM_IMAGE_CACHE: '.ci/setup-image-bases',
};

interface Page {
  file: string;
  text: string;
  /** The text outside fenced code blocks (fences blanked, so line numbers stay). */
  prose: string;
  /** Inline code spans and the lines of fenced code blocks. */
  code: string[];
}

function readPage(file: string): Page {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const code: string[] = [];
  let fenced = false;
  const proseLines = text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    if (fenced) {
      code.push(line);
      return '';
    }
    return line;
  });
  const prose = proseLines.join('\n');
  for (const m of prose.matchAll(/(`+)([^`]+?)\1/g)) code.push(m[2].replace(/\s*\n\s*/g, ' '));
  return { file, text, prose, code };
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function leafCommands(command: Command, path: string[] = []): Array<[string, Command]> {
  const own: Array<[string, Command]> = path.length ? [[path.join(' '), command]] : [];
  return [...own, ...command.commands.flatMap((c) => leafCommands(c, [...path, c.name()]))];
}

const pages = PAGES.map(readPage);
// What `--help-all` lists: `--help` shows the common settings only.
const commands = new Map(leafCommands(buildProgram()).map(([name, c]) => [name, showAllSettings(c)] as const));
/**
 * `opstream emulator cosmos|service-bus` hand every argument to the stand-in's own command line, which
 * its package's bin runs too: their flags are that command's.
 */
const PACKAGED: Record<string, Command> = {
  'emulator cosmos': cosmosEmulatorCommand('opstream emulator cosmos'),
  'emulator service-bus': serviceBusEmulatorCommand('opstream emulator service-bus'),
  'opstream-cosmos-emulator': cosmosEmulatorCommand(),
  'opstream-service-bus-emulator': serviceBusEmulatorCommand(),
};
const helpOf = new Map([...commands, ...Object.entries(PACKAGED)].map(([name, c]) => [name, (PACKAGED[name] ?? c).helpInformation()]));
const listed = (command: string, flag: string): boolean =>
  new RegExp(`(^|[\\s,])${flag}(?=[\\s,=<[]|$)`, 'm').test(helpOf.get(command) ?? '');
const settingVariables = new Set(SETTINGS.map((s) => s.env));
const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

interface Link {
  page: string;
  target: string;
}
const links: Link[] = pages.flatMap((p) =>
  [...p.prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({ page: p.file, target: m[1] })),
);
const relativeLinks = links.filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l.target));

const PATH = /(?<![\w./-])(?:src|test|infra|deploy|bench|schemas|processors|docs|\.ci)(?:\/[\w.-]+)+\/?(?![\w…{<*])/g;
/** Build outputs (a `dist/` folder) are not in a fresh clone. */
const paths = pages
  .flatMap((p) => p.code.flatMap((c) => [...c.matchAll(PATH)].map((m) => ({ page: p.file, path: m[0] }))))
  .filter((p) => !p.path.includes('/dist/'));

/** `opstream <command> …` up to the end of the shell command (`&&`, `;`, a pipe, a comment, a redirection). */
interface Invocation {
  page: string;
  text: string;
  command: string;
  flags: string[];
}
function invocations(page: Page): Invocation[] {
  const found: Invocation[] = [];
  for (const code of page.code) {
    for (const m of code.matchAll(/(?<![\w/-])(opstream(?:-cosmos-emulator|-service-bus-emulator)?)((?: +[^\s]+)*)/g)) {
      const rest = m[2].split(/\s(?:&&|;|\||#|>|2>)\s/)[0];
      const flags = [...rest.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((f) => f[0]);
      if (m[1] !== 'opstream') {
        found.push({ page: page.file, text: `${m[1]}${rest}`, command: m[1], flags });
        continue;
      }
      const words = rest.trim().split(/\s+/);
      let command = '';
      for (let i = words.length; i > 0 && !command; i--) {
        const candidate = words.slice(0, i).join(' ');
        if (commands.has(candidate)) command = candidate;
      }
      if (!command) continue; // `opstream` as a word (a package or process name), not a command
      found.push({ page: page.file, text: `opstream${rest}`, command, flags });
    }
  }
  return found;
}
const calls = pages.flatMap(invocations);
/** A code span that is only a flag (`--cosmos-create-containers`, `--limit N`) is some command's. */
const loneFlags = pages.flatMap((p) =>
  p.code.filter((c) => /^--[a-z][a-z0-9-]*(?: \S+)?$/.test(c)).map((c) => ({ page: p.file, flag: c.split(' ')[0] })),
);
const variables = pages.flatMap((p) => [...p.text.matchAll(/OPSTREAM_[A-Z0-9_]*[A-Z0-9]/g)].map((m) => ({ page: p.file, name: m[0] })));
const npmRuns = pages.flatMap((p) =>
  p.code.flatMap((c) => [...c.matchAll(/npm run (?:--silent )?([\w:-]+)/g)].map((m) => ({ page: p.file, script: m[1] }))),
);

describe('README.md and docs/', () => {
  it('the checks find what they look for (the collectors work)', () => {
    expect(pages.map((p) => p.file)).toEqual(
      expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/configuration.md', 'docs/operating.md']),
    );
    expect(relativeLinks.length).toBeGreaterThan(30);
    expect(relativeLinks.some((l) => l.target.includes('#'))).toBe(true);
    expect(paths.length).toBeGreaterThan(30);
    expect(calls).toEqual(expect.arrayContaining([expect.objectContaining({ command: 'dead-letters replay', flags: ['--file'] })]));
    expect(variables.length).toBeGreaterThan(20);
    expect(npmRuns.map((r) => r.script)).toEqual(expect.arrayContaining(['docs:settings', 'chaos']));
  });

  it('GitHub anchors are computed as GitHub does', () => {
    const anchors = headingAnchors('# A `b` c.d\n## What (it) does — here\n## x\n## x\n```\n# not a heading\n```\n## [Link](y.md) too');
    expect([...anchors]).toEqual(['a-b-cd', 'what-it-does--here', 'x', 'x-1', 'link-too']);
  });

  it('name nothing outside the repository', () => {
    for (const p of pages) expect([p.file, /\.\.\/shared|\/work\//.test(p.text)]).toEqual([p.file, false]);
    const escaping = relativeLinks.filter((l) => {
      const target = resolve(ROOT, dirname(l.page), l.target.split('#')[0] || l.page);
      return target !== ROOT && !target.startsWith(ROOT + sep);
    });
    expect(escaping).toEqual([]);
  });

  it('every relative link resolves, and its #anchor is a heading of the page', () => {
    const broken = relativeLinks.filter((l) => {
      const [path, anchor] = l.target.split('#');
      const file = path ? resolve(ROOT, dirname(l.page), decodeURIComponent(path)) : join(ROOT, l.page);
      if (!existsSync(file)) return true;
      if (anchor === undefined || !file.endsWith('.md') || statSync(file).isDirectory()) return false;
      return !headingAnchors(readFileSync(file, 'utf8')).has(anchor);
    });
    expect(broken.map((l) => `${l.page}: ${l.target}`)).toEqual([]);
  });

  it('every repository path written as code exists', () => {
    const missing = paths.filter((p) => !existsSync(join(ROOT, p.path)));
    expect(missing.map((p) => `${p.page}: ${p.path}`)).toEqual([]);
  });

  it("every flag of an `opstream <command>` is listed by that command's --help-all", () => {
    const unknown = calls.flatMap((c) =>
      c.flags
        .filter((f) => !listed(c.command, f))
        .map(
          (f) =>
            `${c.page}: ${f} is not an option of "${c.command.startsWith('opstream') ? c.command : `opstream ${c.command}`}" (${c.text})`,
        ),
    );
    expect(unknown).toEqual([]);
  });

  it('a flag written alone is an option of some command', () => {
    const unknown = loneFlags.filter((l) => ![...helpOf.keys()].some((c) => listed(c, l.flag)));
    expect(unknown.map((l) => `${l.page}: ${l.flag}`)).toEqual([]);
  });

  it("every OPSTREAM_* variable is a setting's, or read by the file that says so", () => {
    const unknown = variables.filter((v) => {
      if (settingVariables.has(v.name)) return false;
      const reader = OTHER_VARIABLES[v.name];
      return !reader || !readFileSync(join(ROOT, reader), 'utf8').includes(v.name);
    });
    expect([...new Set(unknown.map((v) => `${v.page}: ${v.name}`))]).toEqual([]);
  });

  it('every `npm run X` is a script of package.json', () => {
    expect(npmRuns.filter((r) => !scripts.includes(r.script)).map((r) => `${r.page}: npm run ${r.script}`)).toEqual([]);
  });
});

import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';
import type { Command } from 'commander';
import * as ts from 'typescript';
import { buildProgram } from '../../../src/cli/main';
import { showAllSettings } from '../../../src/cli/config-flags';
import { loadConfig } from '../../../src/config/load-config';
import { SETTINGS } from '../../../src/config/settings';

/**
 * Every hint a message of src/ or processors/ gives — a flag (`--file`) or an environment variable
 * (`OPSTREAM_OPS_TOKEN`) — names something that exists: the flag is listed by `--help` of the
 * command the hint is about, the variable is a setting's (and a `VAR=value` it suggests is accepted).
 * Hints are collected from the string literals of the sources, as the before-stop hook greps them,
 * leaving out the help texts themselves (`.option(…)`, `.description(…)`, `new Option(…)`, …).
 */
const ROOT = join(__dirname, '..', '..', '..');

/** The commands whose `--help` a file's hints must match (`dead-letters replay` = that subcommand). */
const HINTS_ARE_ABOUT: Record<string, string[]> = {
  'src/app/dead-letter-replay.ts': ['dead-letters replay'],
  'src/cli/commands/dead-letters-replay.ts': ['dead-letters replay'],
  'src/cli/commands/dead-letters-discard.ts': ['dead-letters discard'],
  // "pass --yes …, or --dry-run": every command that changes state takes both.
  'src/cli/commands/leases-release.ts': ['leases release'],
  'src/cli/commands/leases-reset.ts': ['leases reset'],
  'src/cli/confirm.ts': ['dead-letters discard', 'leases release', 'leases reset', 'operations nudge'],
  'src/cli/commands/operations.ts': ['operations nudge'],
  'src/cli/cosmos-access.ts': [
    'leases',
    'lag',
    'dead-letters list',
    'dead-letters show',
    'dead-letters replay',
    'dead-letters discard',
    'leases release',
    'leases reset',
    'operations nudge',
    'explain',
  ],
  'src/inspect/explain/gather.ts': ['explain', 'operations nudge'],
  'src/cli/commands/explain.ts': ['explain', 'operations nudge'],
  'src/inspect/explain/ask-owner.ts': ['explain', 'operations nudge'],
  'src/inspect/explain/owner-trust.ts': ['explain', 'operations nudge'],
  'src/inspect/explain/owner-hint.ts': ['explain', 'operations nudge'],
  // The warning of a running instance points at `opstream config check --for run`.
  'src/app/other-fleets.ts': ['config check'],
  'src/cli/other-fleets-line.ts': ['config check'],
  'src/cli/ops-endpoint.ts': ['tap'],
  'src/cli/tap-client.ts': ['tap'],
  'src/config/load-config.ts': ['run', 'start', 'leases', 'lag', 'config check'],
  // "… start opstream run with --cosmos-create-containers …", whichever command found the layout missing.
  'src/cosmos/containers.ts': ['run'],
  'src/app/cs-events.ts': ['run', 'start'],
  'src/auth/azure-credential.ts': ['run', 'leases', 'lag', 'config check'],
  'src/auth/cosmos-auth.ts': ['run', 'leases', 'lag'],
  'src/app/cosmos-client.ts': ['run', 'leases', 'lag'],
  'src/app/opstream-app.ts': ['run', 'start'],
  'src/app/wiring/cosmos.ts': ['run', 'start'],
  'src/app/wiring/clusters-service.ts': ['run', 'start'],
  'src/app/wiring/arm.ts': ['run', 'start'],
  // What the ops server answers a stream past its cap or a foreign Host: settings of the instance.
  'src/ops/ops-server.ts': ['run', 'start'],
  'src/clusters-service/errors.ts': ['run', 'start'],
  'src/app/operation-events.ts': ['run', 'start'],
  'src/app/operation-hints.ts': ['run', 'start'],
  'src/service-bus/operation-events-publisher.ts': ['run', 'start'],
  'src/service-bus/service-bus-access.ts': ['run', 'start', 'tap'],
  'src/auth/service-bus-auth.ts': ['run', 'tap'],
  'src/cli/commands/tap.ts': ['tap'],
  'src/cli/topic-tap.ts': ['tap'],
  // The line `npm start` prints to follow its Operation events.
  'src/cli/embedded.ts': ['tap'],
  'src/cli/commands/emulator-identity.ts': ['emulator identity'],
  // "--help-all lists every setting", "(opstream <command> --help lists its options)": every command's.
  'src/cli/config-flags.ts': [
    'run',
    'start',
    'leases',
    'lag',
    'explain',
    'config check',
    'dead-letters list',
    'dead-letters show',
    'dead-letters replay',
    'dead-letters discard',
    'leases release',
    'leases reset',
    'operations nudge',
  ],
  'src/cli/main.ts': ['run', 'tap', 'leases', 'emulator'],
  // The stand-ins' own command lines take --help (the wrapper hands it on): listed by `opstream emulator --help`.
  'src/cli/commands/emulator-packaged.ts': ['emulator'],
};

/** Flags of another tool's command quoted in a message (`az cosmosdb …`), not opstream's. */
const OTHER_TOOLS_FLAGS: Record<string, string[]> = {
  'src/cosmos/containers.ts': ['--ttl', '--partition-key-version'],
  'src/auth/cosmos-auth.ts': ['--scope', '--principal-id', '--role-definition-id'],
  'src/service-bus/service-bus-access.ts': ['--role', '--assignee', '--scope'],
};

/** Calls whose string arguments are help text or argv checks, not messages. */
const NOT_MESSAGES = new Set([
  'option',
  'requiredOption',
  'addOption',
  'description',
  'summary',
  'usage',
  'addHelpText',
  'command',
  'argument',
  'includes',
]);

interface Hint {
  file: string;
  kind: 'flag' | 'variable';
  name: string;
  /** For `OPSTREAM_X=value`. */
  value?: string;
  text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') && !path.endsWith('types.generated.ts') ? [path] : [];
  });
}

function isHelpText(node: ts.Node): boolean {
  for (let child = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
    if (ts.isCallExpression(parent) && parent.arguments.some((a) => a === child)) {
      const callee = parent.expression;
      if (ts.isPropertyAccessExpression(callee) && NOT_MESSAGES.has(callee.name.text)) return true;
    }
    if (ts.isNewExpression(parent) && ts.isIdentifier(parent.expression) && parent.expression.text === 'Option') return true;
  }
  return false;
}

function collectHints(): Hint[] {
  const hints: Hint[] = [];
  for (const path of [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'processors'))]) {
    const file = relative(ROOT, path).split('\\').join('/');
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const literal = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node);
      if (literal && !isHelpText(node)) {
        const text = node.text;
        // A flag cut by a `${…}` substitution (`--no-${name}`) is built, not written: not a hint.
        const continued = ts.isTemplateHead(node) || ts.isTemplateMiddle(node);
        for (const m of text.matchAll(/--[a-z][a-z0-9-]*/g)) {
          if (OTHER_TOOLS_FLAGS[file]?.includes(m[0])) continue;
          if (!(continued && m.index + m[0].length === text.length)) hints.push({ file, kind: 'flag', name: m[0], text });
        }
        for (const m of text.matchAll(/(OPSTREAM_[A-Z0-9_]+)(?:=([^\s),;]+))?/g))
          hints.push({ file, kind: 'variable', name: m[1], value: m[2], text });
      }
      node.forEachChild(visit);
    };
    visit(source);
  }
  return hints;
}

function leafCommands(command: Command, path: string[] = []): Array<[string, Command]> {
  const own: Array<[string, Command]> = path.length ? [[path.join(' '), command]] : [];
  return [...own, ...command.commands.flatMap((c) => leafCommands(c, [...path, c.name()]))];
}

// Listed by `--help-all`: `--help` shows the common settings only.
const commands = new Map(leafCommands(buildProgram()).map(([name, c]) => [name, showAllSettings(c)] as const));
const listed = (command: string, flag: string): boolean => {
  const help = commands.get(command)?.helpInformation() ?? '';
  return new RegExp(`(^|[\\s,])${flag}(?=[\\s,=<[]|$)`, 'm').test(help);
};
const hints = collectHints();
const settingVariables = new Set(SETTINGS.map((s) => s.env));

describe('hints in messages name real flags and variables', () => {
  it('finds the hints (the collector works)', () => {
    expect(hints).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'src/cosmos/containers.ts', kind: 'flag', name: '--cosmos-create-containers' }),
        expect.objectContaining({
          file: 'src/cosmos/containers.ts',
          kind: 'variable',
          name: 'OPSTREAM_COSMOS_CREATE_CONTAINERS',
          value: 'true',
        }),
        expect.objectContaining({ file: 'src/cli/tap-client.ts', kind: 'flag', name: '--token' }),
        expect.objectContaining({ file: 'src/app/dead-letter-replay.ts', kind: 'flag', name: '--force' }),
      ]),
    );
  });

  it('every file with a hint says which commands its hints are about', () => {
    const files = [...new Set(hints.map((h) => h.file))];
    expect(files.filter((f) => !HINTS_ARE_ABOUT[f])).toEqual([]); // add the file to HINTS_ARE_ABOUT
    for (const about of Object.values(HINTS_ARE_ABOUT)) for (const c of about) expect([c, commands.has(c)]).toEqual([c, true]);
  });

  it.each(hints.filter((h) => h.kind === 'flag').map((h) => [h.name, h.file, h] as const))(
    '%s (%s) is listed by --help',
    (_name, _file, hint) => {
      const missing = (HINTS_ARE_ABOUT[hint.file] ?? []).filter((c) => !listed(c, hint.name));
      expect({ hint: hint.text, missingFrom: missing }).toEqual({ hint: hint.text, missingFrom: [] });
    },
  );

  it.each(hints.filter((h) => h.kind === 'variable').map((h) => [h.name, h.file, h] as const))(
    '%s (%s) is a setting variable',
    (name, _file, hint) => {
      expect(settingVariables.has(name)).toBe(true);
      if (hint.value !== undefined) expect(() => loadConfig({ env: { [name]: hint.value } })).not.toThrow();
    },
  );

  it('every command with settings lists each setting flag (boolean ones also as --no-) and variable, which messages name too', () => {
    const withSettings = [...commands].filter(([, command]) => command.options.some((o) => o.long === SETTINGS[0].flag));
    expect(withSettings.map(([name]) => name).sort()).toEqual(
      [
        'config check',
        'dead-letters discard',
        'dead-letters list',
        'dead-letters replay',
        'dead-letters show',
        'explain',
        'lag',
        'leases',
        'leases release',
        'leases reset',
        'operations nudge',
        'run',
        'start',
      ].sort(),
    );
    for (const [name, command] of withSettings) {
      const help = command.helpInformation();
      for (const s of SETTINGS) {
        for (const flag of [s.flag, ...(s.negatedFlag ? [s.negatedFlag] : [])])
          expect([name, flag, listed(name, flag)]).toEqual([name, flag, true]);
        expect([name, s.env, help.includes(`[env ${s.env}]`)]).toEqual([name, s.env, true]);
      }
    }
  });

  it('a boolean setting is a plain switch: no value after it', () => {
    const run = commands.get('run')?.helpInformation() ?? '';
    expect(run).toMatch(/^ {2}--cosmos-create-containers {2,}create the database/m);
    expect(run).toMatch(/^ {2}--no-cosmos-create-containers {2,}turn cosmos.createContainers off/m);
    expect(run).not.toContain('--cosmos-create-containers <value>');
  });
});

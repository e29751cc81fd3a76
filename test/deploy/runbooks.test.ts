import { existsSync, readFileSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { buildProgram } from '../../src/cli/main';
import { SETTINGS } from '../../src/config/settings';
import { createMetrics, createPermissionDeniedCounter } from '../../src/ops/metrics';

/**
 * docs/runbooks.md answers every alert of the PrometheusRule: each alert's runbook_url names a file
 * of the repository and a heading of it (GitHub's anchor), and what the page tells an SRE to type
 * exists: `opstream <command> --flag` is listed by that command, `OPSTREAM_*` and `a.b` are settings,
 * `opstream_*` are exported metrics, relative links resolve.
 */
const ROOT = join(__dirname, '..', '..');
const RULE_FILE = join(ROOT, 'deploy/kubernetes/base/prometheusrule.yaml');
const RUNBOOKS = join(ROOT, 'docs/runbooks.md');

interface Alert {
  alert: string;
  annotations?: Record<string, string>;
}

const rule = parse(readFileSync(RULE_FILE, 'utf8')) as { spec: { groups: Array<{ rules: Array<Partial<Alert>> }> } };
const alerts = rule.spec.groups.flatMap((g) => g.rules).filter((r): r is Alert => typeof r.alert === 'string');
const runbooks = readFileSync(RUNBOOKS, 'utf8');

/** GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped, spaces to '-'. */
function githubAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code blocks); repeats get -1, -2… as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCodeBlocks(markdown).split('\n')) {
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = githubAnchor(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function withoutCodeBlocks(markdown: string): string {
  return markdown.replace(/^ *```[^\n]*\n[\s\S]*?^ *```\s*$/gm, '');
}

/** Text that is typed: fenced blocks' lines and inline code spans. */
function codeTexts(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^ *```[^\n]*\n([\s\S]*?)^ *```\s*$/gm)].flatMap((m) => (m[1] as string).split('\n'));
  const inline = [...withoutCodeBlocks(markdown).matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
  return [...blocks, ...inline];
}

function leafCommands(command: Command, path: string[] = []): Array<[string, Command]> {
  const own: Array<[string, Command]> = path.length ? [[path.join(' '), command]] : [];
  return [...own, ...command.commands.flatMap((c) => leafCommands(c, [...path, c.name()]))];
}

interface Invocation {
  text: string;
  command: string;
  flags: string[];
}

/**
 * Each `opstream …` that starts a command (a code span or line, or after `|`, `&&`, `;`, `$(`), up
 * to the end of that command; its command is the longest known command path it starts with.
 */
function invocations(texts: string[], known: ReadonlySet<string>): Invocation[] {
  const out: Invocation[] = [];
  for (const text of texts) {
    const code = text.replace(/\s#\s.*$/, ''); // a shell comment
    for (const m of code.matchAll(/(?:^|\||&&|;|\$\()\s*opstream\s+([^|;&)]*)/g)) {
      const words = (m[1] as string).trim().split(/\s+/);
      const command = [2, 1].map((n) => words.slice(0, n).join(' ')).find((c) => known.has(c)) ?? words.slice(0, 2).join(' ');
      out.push({ text: text.trim(), command, flags: words.filter((w) => w.startsWith('--')).map((w) => w.replace(/=.*$/, '')) });
    }
  }
  return out;
}

const commands = new Map(leafCommands(buildProgram()));
const settingKeys = new Set(SETTINGS.map((s) => s.key));
const settingVariables = new Set(SETTINGS.map((s) => s.env));
const SECTIONS = new Set(SETTINGS.map((s) => s.key.split('.')[0]));

describe('docs/runbooks.md', () => {
  it('the PrometheusRule has alerts (the parser works)', () => {
    expect(alerts.map((a) => a.alert)).toEqual(
      expect.arrayContaining(['OpstreamOperationTooOld', 'OpstreamNoLeaseOwned', 'OpstreamPermissionDenied']),
    );
  });

  it.each(alerts.map((a) => [a.alert, a] as const))('%s: its runbook_url is a heading of a file of the repository', (name, alert) => {
    const url = alert.annotations?.runbook_url ?? '';
    const [file, anchor] = url.split('#');
    expect({ url, relative: !/^[a-z]+:/i.test(url) && !url.startsWith('/'), anchor: anchor ?? '' }).toEqual({
      url,
      relative: true,
      anchor: name.toLowerCase(),
    });
    const path = join(ROOT, file as string);
    expect([file, existsSync(path)]).toEqual([file, true]);
    expect([url, anchorsOf(readFileSync(path, 'utf8')).has(anchor as string)]).toEqual([url, true]);
  });

  it('has a section per alert, no other alert section, each with what it means, how to confirm it and what to do', () => {
    const sections = runbooks.split(/^## /m).slice(1);
    const alertSections = sections.filter((s) => /^Opstream\w+\n/.test(s));
    expect(alertSections.map((s) => s.split('\n')[0]).sort()).toEqual(alerts.map((a) => a.alert).sort());
    for (const section of alertSections) {
      const name = section.split('\n')[0];
      expect([name, ['**Means.**', '**Confirm.**', '**Act.**'].filter((part) => !section.includes(part))]).toEqual([name, []]);
    }
  });

  it('links only inside the repository, to files and headings that exist', () => {
    const links = [...withoutCodeBlocks(runbooks).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      expect([link, /^[a-z]+:|^\/\//i.test(link)]).toEqual([link, false]);
      const [file, anchor] = link.split('#');
      const path = file ? resolve(dirname(RUNBOOKS), file) : RUNBOOKS;
      expect([link, relative(ROOT, path).startsWith('..'), existsSync(path)]).toEqual([link, false, true]);
      if (anchor) expect([link, anchorsOf(readFileSync(path, 'utf8')).has(anchor)]).toEqual([link, true]);
    }
  });

  const found = invocations(codeTexts(runbooks), new Set(commands.keys()));

  it('names opstream commands (the collector works)', () => {
    expect(found).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ command: 'explain' }),
        expect.objectContaining({ command: 'dead-letters replay', flags: ['--file'] }),
        expect.objectContaining({ command: 'tap', flags: ['--json'] }),
      ]),
    );
    // A pipe ends the command; a comment and a namespace named opstream are not one.
    expect(
      invocations(['opstream lag --nope | jq --raw-output .total # --json', 'kubectl -n opstream get pods'], new Set(commands.keys())),
    ).toEqual([{ text: 'opstream lag --nope | jq --raw-output .total # --json', command: 'lag', flags: ['--nope'] }]);
  });

  it.each(found.map((i) => [i.text, i] as const))('%s: the command exists and lists its flags', (_text, invocation) => {
    const command = commands.get(invocation.command);
    expect([invocation.command, command !== undefined]).toEqual([invocation.command, true]);
    const longs = new Set([...(command?.options.map((o) => o.long) ?? []), '--help']);
    expect({ command: invocation.command, unknown: invocation.flags.filter((f) => !longs.has(f)) }).toEqual({
      command: invocation.command,
      unknown: [],
    });
  });

  it('every OPSTREAM_* variable is a setting', () => {
    const variables = [...new Set([...runbooks.matchAll(/\bOPSTREAM_[A-Z0-9_]+/g)].map((m) => m[0]))];
    expect(variables.length).toBeGreaterThan(5);
    expect(variables.filter((v) => !settingVariables.has(v))).toEqual([]);
  });

  it('every setting named (`section.name`) exists', () => {
    const named = [
      ...new Set(codeTexts(runbooks).filter((t) => /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/.test(t) && SECTIONS.has(t.split('.')[0] as string))),
    ];
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((k) => !settingKeys.has(k))).toEqual([]);
  });

  it('every opstream_* metric is exported', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    createPermissionDeniedCounter(metrics.registry, ['Operations']);
    const families = (await metrics.registry.getMetricsAsJSON()).flatMap((m) =>
      String(m.type) === 'histogram' ? [m.name, `${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name],
    );
    const named = [...new Set([...runbooks.matchAll(/\bopstream_[a-z_]+/g)].map((m) => m[0]))];
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((n) => !families.includes(n))).toEqual([]);
  });
});

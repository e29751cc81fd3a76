import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * The house rules that dependency-cruiser cannot state (sizes, counts, documentation), and one it
 * states too, checked here on the sources so a failure names the file.
 */
const ROOT = join(__dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .filter((f) => !f.split('/').includes('dist') && !f.split('/').includes('node_modules'));
}

function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  return source.statements
    .filter((s): s is ts.ImportDeclaration | ts.ExportDeclaration => ts.isImportDeclaration(s) || ts.isExportDeclaration(s))
    .map((s) => s.moduleSpecifier)
    .filter((m): m is ts.StringLiteral => m !== undefined && ts.isStringLiteral(m))
    .map((m) => m.text);
}

describe('the change feed package', () => {
  const index = join(ROOT, 'src/changefeed/index.ts');
  const program = ts.createProgram([index], { strict: true, types: ['node'], skipLibCheck: true });
  const checker = program.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(index)!)!);

  it('shows a short public face: at most 25 names', () => {
    expect(exported.length).toBeGreaterThan(0);
    expect(exported.length).toBeLessThanOrEqual(25);
  });

  it.each(exported.map((s) => s.name))('documents %s', (name) => {
    const symbol = checker.getAliasedSymbol(exported.find((s) => s.name === name)!);
    expect(ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim()).not.toBe('');
  });

  it('is entered by its name only: opstream imports none of its files and none of its subpaths', () => {
    const offenders = ['src', 'processors', 'bench']
      .flatMap(sourceFiles)
      .filter((f) => !f.startsWith('src/changefeed/'))
      .flatMap((f) => importsOf(f).map((spec) => ({ f, spec })))
      .filter(({ spec }) => spec.startsWith('@opstream/changefeed/') || /(^|\/)changefeed\//.test(spec));
    expect(offenders).toEqual([]);
  });
});

describe('the queue', () => {
  it('knows nothing of what it holds: no src/pipeline/queue module imports src/cosmos, src/clusters-service or src/domain', () => {
    const offenders = sourceFiles('src/pipeline/queue')
      .flatMap((f) => importsOf(f).map((spec) => ({ f, spec })))
      .filter(({ spec }) => /(^|\/)(cosmos|clusters-service|domain)(\/|$)/.test(spec));
    expect(offenders).toEqual([]);
  });
});

describe('the composition root', () => {
  const file = 'src/app/opstream-app.ts';
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const start = source.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'startOpstream');
  const lines = start
    ? source.getLineAndCharacterOfPosition(start.getEnd()).line - source.getLineAndCharacterOfPosition(start.getStart()).line + 1
    : Infinity;

  // One dependency wired per module (src/app/wiring/): the root reads as the order things start in.
  it('startOpstream reads in one screen: at most 80 lines', () => {
    expect(lines).toBeLessThanOrEqual(80);
  });
});

describe('the engine', () => {
  // The plug-in line: a resource kind lives under processors/<kind>/ and the registry; the engine knows none by name.
  it('names no resource kind: no src/pipeline module mentions node pools, external auths or credentials', () => {
    const mentions = sourceFiles('src/pipeline').flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/nodePool|NodePool|externalAuth|[Cc]redential/.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(mentions).toEqual([]);
  });
});

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

/**
 * The house rules that dependency-cruiser cannot state (sizes, counts, documentation), the queue's
 * ignorance of what it holds, and the cruiser's import rules of the packages' edges (the change feed
 * stands alone and is entered by its name, only the composition root imports processors/, the queue
 * imports neither of its neighbours), re-checked here on the sources so a failure names the file.
 */
const ROOT = join(__dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .filter((f) => !f.split('/').includes('dist') && !f.split('/').includes('node_modules'));
}

/** What `file` imports, as written: import and export declarations, `import()` and `require()` calls. */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      specifiers.push(node.moduleSpecifier.text);
    const called =
      ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || node.expression.getText() === 'require');
    const [first] = ts.isCallExpression(node) ? node.arguments : [];
    if (called && first && ts.isStringLiteralLike(first)) specifiers.push(first.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** Where an import of `file` lands, from the repository's root (a package's, or Node's, as `node_modules/<name>`). */
function target(file: string, spec: string): string {
  return spec.startsWith('.') ? normalize(join(dirname(file), spec)) : `node_modules/${spec}`;
}

/** Every import of the `.ts` files below `dirs` (but those of `except`) that lands where `forbidden` says, with its file. */
function importsLanding(dirs: string[], forbidden: (landing: string) => boolean, except: (file: string) => boolean = () => false) {
  return dirs
    .flatMap(sourceFiles)
    .filter((f) => !except(f))
    .flatMap((f) => importsOf(f).map((spec) => ({ f, spec })))
    .filter(({ f, spec }) => forbidden(target(f, spec)));
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

  it('stands alone: it imports nothing of opstream outside src/changefeed (packages and Node only)', () => {
    const offenders = importsLanding(['src/changefeed'], (landing) => !/^(src\/changefeed|node_modules)(\/|$)/.test(landing));
    expect(offenders).toEqual([]);
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
  it('owns the contract between the source and the reconciler: no src/pipeline/queue module imports either', () => {
    expect(importsLanding(['src/pipeline/queue'], (landing) => /^src\/pipeline\/(source|reconcile)(\/|$)/.test(landing))).toEqual([]);
  });

  it('knows nothing of what it holds: no src/pipeline/queue module imports src/cosmos, src/clusters-service or src/domain', () => {
    const offenders = sourceFiles('src/pipeline/queue')
      .flatMap((f) => importsOf(f).map((spec) => ({ f, spec })))
      .filter(({ spec }) => /(^|\/)(cosmos|clusters-service|domain)(\/|$)/.test(spec));
    expect(offenders).toEqual([]);
  });
});

describe('the composition root', () => {
  it('alone imports processors/: only src/cli/embedded.ts and src/cli/commands/run.ts', () => {
    const root = (f: string): boolean => /^src\/cli\/(embedded\.ts|commands\/run\.ts)$/.test(f);
    expect(importsLanding(['src'], (landing) => /^processors(\/|$)/.test(landing), root)).toEqual([]);
    // The check sees the root's own imports of processors/.
    expect(
      importsLanding(['src/cli'], (landing) => /^processors(\/|$)/.test(landing))
        .map(({ f }) => f)
        .sort(),
    ).toEqual(['src/cli/commands/run.ts', 'src/cli/embedded.ts']);
  });

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

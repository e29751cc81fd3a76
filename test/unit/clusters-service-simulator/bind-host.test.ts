import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import * as ts from 'typescript';
import { checkBindHost, startClustersServiceSimulator } from '@opstream/clusters-service-simulator';

describe('the Clusters Service simulator listens on loopback unless told otherwise', () => {
  it('takes loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1']) expect(() => checkBindHost(host, false)).not.toThrow();
  });

  it('refuses any other host without allowRemote, naming it and the flag', () => {
    for (const host of ['0.0.0.0', '::', '', '10.0.0.5', 'sim.example']) {
      expect(() => checkBindHost(host, false)).toThrow(
        /^the Clusters Service simulator listens on loopback only .*allowRemote.*--allow-remote/,
      );
    }
  });

  it('takes any host with allowRemote', () => {
    expect(() => checkBindHost('0.0.0.0', true)).not.toThrow();
  });

  // 192.0.2.1 (TEST-NET-1) is no address of this machine: even a listen there would fail, exposing nothing.
  it('refuses before listening', async () => {
    await expect(startClustersServiceSimulator({ host: '192.0.2.1' })).rejects.toThrow(/listens on loopback only/);
  });
});

/**
 * Secrets (bearer tokens, keys) are compared in constant time (`timingSafeEqual`), never with
 * `===`/`!==`, which return at the first different character. Checked in the sources of the
 * stand-ins and of the ops server: no equality comparison has an `authorization` header, or a
 * token or key, on either side.
 */
describe('secrets are compared in constant time', () => {
  const ROOT = join(__dirname, '..', '..', '..');
  const files = [
    ...['clusters-service', 'cosmos-emulator', 'service-bus', 'identity', 'shared'].flatMap((d) =>
      readdirSync(join(ROOT, 'infra', d))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join('infra', d, f)),
    ),
    join('src', 'ops', 'ops-server.ts'),
  ].filter((f) => /authorization|Bearer/i.test(readFileSync(join(ROOT, f), 'utf8')));
  const SECRETISH = /(authorization|token|key)\b/i;

  it('finds the files that read a bearer token', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        join('infra', 'clusters-service', 'server.ts'),
        join('infra', 'service-bus', 'admin.ts'),
        join('src', 'ops', 'ops-server.ts'),
      ]),
    );
  });

  it.each(files)('%s', (file) => {
    const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      if (
        ts.isBinaryExpression(node) &&
        [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind)
      ) {
        const sides = [node.left, node.right].map((n) => n.getText(source));
        const isSecret = (text: string): boolean =>
          SECRETISH.test(text) && !/^(undefined|null|'[^']*'|"[^"]*")$/.test(text) && !/\b(length|type|kind|startsWith)\b/.test(text);
        if (sides.every(isSecret) || (sides.some(isSecret) && sides.some((s) => /^`Bearer /.test(s)))) found.push(node.getText(source));
      }
      node.forEachChild(visit);
    };
    visit(source);
    expect(found).toEqual([]);
  });
});

import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { loadConfig } from '../../../src/config/load-config';
import { ConfigError } from '../../../src/config/config-error';

/**
 * A configuration file that is not valid JSON (issue 39): the error used to quote V8's message, which quotes
 * the text around the error — part of cosmos.key. Now it says where (line, column) and what, never a value.
 */
describe('a configuration file with a JSON syntax error', () => {
  const SECRET = 'SuperSecretKeyC2VjcmV0LXNlY3JldA';
  const dir = mkdtempSync(join(tmpdir(), 'opstream-config-syntax-'));

  it.each([
    ['an unquoted value', `{"cosmos": {"key": ${SECRET}}}`, 1, 20],
    ['a single-quoted value', `{\n  "cosmos": {\n    "key": '${SECRET}'\n  }\n}`, 3, 12],
    ['a missing comma', `{"cosmos": {"key": "${SECRET}" "database": "x"}}`, 1, 55],
    ['a cut file', `{"cosmos": {"key": "${SECRET}`, 1, 53],
    ['a control character', `{"cosmos": {"key": "${SECRET.slice(0, 10)}\u0001${SECRET.slice(10)}"}}`, 1, 31],
  ])('%s: says where, never the value', (_what, text, line, column) => {
    const file = join(dir, 'config.json');
    writeFileSync(file, text);
    let err: unknown;
    try {
      loadConfig({ file, env: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).toContain(`config file ${file}: not valid JSON at line ${line}, column ${column}`);
    // Not even four characters in a row of the secret.
    for (let i = 0; i + 4 <= SECRET.length; i++) expect(message).not.toContain(SECRET.slice(i, i + 4));
  });
});

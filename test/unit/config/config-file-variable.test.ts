import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { effectiveSettings } from '../../../src/config/effective-settings';
import { loadConfig } from '../../../src/config/load-config';
import { unknownVariables } from '../../../src/config/nearest-setting';

/** `OPSTREAM_CONFIG` names the configuration file when `--config` is not given. */
describe('OPSTREAM_CONFIG', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opstream-config-'));
  const file = (name: string, settings: Record<string, unknown>): string => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(settings));
    return path;
  };
  const base = { cosmos: { endpoint: 'https://127.0.0.1:8081', key: 'a2V5' }, clustersService: { url: 'http://127.0.0.1:8000' } };

  it('reads the file it names', () => {
    const named = file('named.json', { ...base, log: { level: 'debug' } });
    expect(loadConfig({ env: { OPSTREAM_CONFIG: named } }).log.level).toBe('debug');
  });

  it('gives way to --config, and the environment still wins over the file', () => {
    const named = file('env.json', { ...base, log: { level: 'debug' } });
    const flagged = file('flag.json', { ...base, log: { level: 'warn' } });
    expect(loadConfig({ file: flagged, env: { OPSTREAM_CONFIG: named } }).log.level).toBe('warn');
    expect(loadConfig({ env: { OPSTREAM_CONFIG: named, OPSTREAM_LOG_LEVEL: 'error' } }).log.level).toBe('error');
  });

  it('is a known variable, and the settings it holds are reported as from the file', () => {
    const named = file('report.json', { ...base, log: { level: 'debug' } });
    const env = { OPSTREAM_CONFIG: named };
    expect(unknownVariables(env)).toEqual([]);
    const config = loadConfig({ env });
    expect(effectiveSettings(config, { env, flags: {} }).find((s) => s.key === 'log.level')).toMatchObject({ source: 'file' });
  });

  it('an empty value names no file: the defaults hold', () => {
    expect(loadConfig({ env: { OPSTREAM_CONFIG: '' } }).log.level).toBe(loadConfig({ env: {} }).log.level);
  });

  it('a file it names that does not exist is an error naming it', () => {
    expect(() => loadConfig({ env: { OPSTREAM_CONFIG: join(dir, 'missing.json') } })).toThrow(/missing\.json/);
  });
});

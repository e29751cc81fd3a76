import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Command, CommanderError } from 'commander';
import { addConfigFlags, settingFlags } from '../../../src/cli/config-flags';
import { loadConfig } from '../../../src/config/load-config';
import { SETTINGS } from '../../../src/config/settings';

/** Setting flags as a command parses them; boolean settings are switches with a `--no-` form. */
function parse(args: string[]): Record<string, unknown> {
  const command = addConfigFlags(new Command('x').exitOverride().configureOutput({ writeErr: () => undefined })).action(() => undefined);
  command.parse(args, { from: 'user' });
  return command.opts();
}

function createContainers(args: string[], env: NodeJS.ProcessEnv = {}, file?: string): boolean {
  return loadConfig({ env, file, flags: settingFlags(parse(args)) }).cosmos.createContainers;
}

describe('setting flags', () => {
  it('every boolean setting has a switch and its --no- form; the others take a value', () => {
    for (const s of SETTINGS) expect([s.key, s.negatedFlag]).toEqual([s.key, s.type === 'boolean' ? `--no-${s.flag.slice(2)}` : undefined]);
    expect(SETTINGS.find((s) => s.key === 'cosmos.createContainers')).toMatchObject({
      flag: '--cosmos-create-containers',
      negatedFlag: '--no-cosmos-create-containers',
    });
  });

  it('--cosmos-create-containers turns it on, --no-cosmos-create-containers off, over the environment and the file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'opstream-flags-')), 'c.json');
    writeFileSync(file, JSON.stringify({ cosmos: { createContainers: true } }));
    expect(createContainers([])).toBe(false);
    expect(createContainers(['--cosmos-create-containers'])).toBe(true);
    expect(createContainers(['--no-cosmos-create-containers'], { OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true' })).toBe(false);
    expect(createContainers(['--cosmos-create-containers'], { OPSTREAM_COSMOS_CREATE_CONTAINERS: 'false' })).toBe(true);
    expect(createContainers(['--no-cosmos-create-containers'], {}, file)).toBe(false);
  });

  it('without the switch, the environment variable and then the file decide', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'opstream-flags-')), 'c.json');
    writeFileSync(file, JSON.stringify({ cosmos: { createContainers: true } }));
    expect(settingFlags(parse([]))).toEqual({});
    expect(createContainers([], { OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true' })).toBe(true);
    expect(createContainers([], { OPSTREAM_COSMOS_CREATE_CONTAINERS: 'false' }, file)).toBe(false);
    expect(createContainers([], {}, file)).toBe(true);
  });

  it('the switch takes no value; other settings still do', () => {
    expect(() => parse(['--cosmos-create-containers', 'true'])).toThrow(CommanderError);
    expect(() => parse(['--cosmos-create-containers=true'])).toThrow(CommanderError);
    expect(settingFlags(parse(['--cosmos-database', 'db1', '--pipeline-concurrency', '4']))).toEqual({
      'cosmos.database': 'db1',
      'pipeline.concurrency': '4',
    });
  });
});

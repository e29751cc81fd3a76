import { Command, Option } from 'commander';
import { loadConfig, requireSettings } from '../config/load-config';
import type { OpstreamConfig } from '../config/config-types';
import { SETTINGS } from '../config/settings';

/**
 * Settings a command that reads Cosmos directly cannot run without (cosmos.connectionString stands in
 * for the endpoint; without a key, Entra ID is used).
 */
export const COSMOS_REQUIRED = ['cosmos.endpoint'];
/** Settings `opstream run` cannot run without (`config check --for run` checks the same). */
export const RUN_REQUIRED = [...COSMOS_REQUIRED, 'clustersService.url'];

/**
 * Every configuration setting as a flag (`--cosmos-endpoint <value>`, …), plus `--config <file>`.
 * A boolean setting is a switch, with its `--no-` form to turn it off over the environment or the
 * file (`--cosmos-create-containers`, `--no-cosmos-create-containers`). Other flags are strings
 * here; loadConfig coerces and validates them with the rest, so a bad flag fails with the same
 * one-line message as a bad environment variable.
 */
export function addConfigFlags(command: Command): Command {
  // First, so that the command's own options are listed before the settings even when added after them.
  command.addOption(new Option('--help-all', `display help with all ${SETTINGS.length} settings (also in docs/configuration.md)`));
  command.on('option:help-all', () => {
    showAllSettings(command);
    command.help();
  });
  const common = (key: string | undefined): boolean => key === undefined || COMMON_SETTINGS.includes(key);
  const add = (option: Option, key: string | undefined): void => {
    command.addOption(option.helpGroup(COMMON_GROUP).hideHelp(!common(key)));
  };
  add(
    new Option('--config <file>', 'JSON configuration file (settings as in schemas/config.schema.json) [env OPSTREAM_CONFIG]'),
    undefined,
  );
  for (const s of SETTINGS) {
    const help = `${s.description ?? s.key}${s.default !== undefined ? ` (default: ${JSON.stringify(s.default)})` : ''} [env ${s.env}]`;
    if (s.negatedFlag) {
      // Positive form first: commander then leaves the value undefined unless one of the two is given.
      add(new Option(s.flag, help), s.key);
      add(new Option(s.negatedFlag, `turn ${s.key} off (over ${s.env} and --config)`), s.key);
    } else {
      add(new Option(`${s.flag} <value>`, help), s.key);
    }
  }
  return command;
}

/**
 * The settings every `--help` lists after the command's own options; `--help-all` lists them all.
 * Each is also an OPSTREAM_* variable and a key of the --config file.
 */
const COMMON_SETTINGS = [
  'cosmos.endpoint',
  'cosmos.key',
  'cosmos.connectionString',
  'cosmos.database',
  'clustersService.url',
  'clustersService.token',
  'changefeed.name',
  'ops.addr',
  'log.level',
  'log.format',
];
const COMMON_GROUP = 'Common settings (each also an OPSTREAM_* variable; --help-all lists every setting):';
const ALL_GROUP = 'Settings (each also an OPSTREAM_* variable and a key of the --config file):';

/** Makes `command`'s help list every setting flag: what `--help-all` prints. */
export function showAllSettings(command: Command): Command {
  for (const option of command.options) {
    if (option.helpGroupHeading === COMMON_GROUP) option.helpGroup(ALL_GROUP).hideHelp(false);
  }
  return command;
}

/** Reads the flags added above into a validated configuration; `required` names settings that must be set. */
export function configFromFlags(
  flags: Record<string, unknown>,
  required: string[] = [],
  overrides: Record<string, unknown> = {},
): OpstreamConfig {
  const fromFlags: Record<string, unknown> = { ...overrides, ...settingFlags(flags) };
  const config = loadConfig({ file: flags.config as string | undefined, env: process.env, flags: fromFlags });
  requireSettings(config, required);
  return config;
}

/** The setting flags given on the command line, keyed by setting (`cosmos.endpoint`). */
export function settingFlags(flags: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    const camel = s.flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (flags[camel] !== undefined) out[s.key] = flags[camel];
  }
  return out;
}

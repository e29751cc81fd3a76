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
  command.option('--config <file>', 'JSON configuration file (settings as in schemas/config.schema.json)');
  for (const s of SETTINGS) {
    const help = `${s.description ?? s.key}${s.default !== undefined ? ` (default: ${JSON.stringify(s.default)})` : ''} [env ${s.env}]`;
    if (s.negatedFlag) {
      // Positive form first: commander then leaves the value undefined unless one of the two is given.
      command.addOption(new Option(s.flag, help));
      command.addOption(new Option(s.negatedFlag, `turn ${s.key} off (over ${s.env} and --config)`));
    } else {
      command.addOption(new Option(`${s.flag} <value>`, help));
    }
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

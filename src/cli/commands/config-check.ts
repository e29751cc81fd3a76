import { Command, Option } from 'commander';
import { effectiveSettings } from '../../config/effective-settings';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED, RUN_REQUIRED, settingFlags } from '../config-flags';
import { formatTable } from '../table';
import { otherFleetsLine } from '../other-fleets-line';
import { containersLine } from '../containers-line';
import { CliError, EXIT } from '../exit-codes';
import { cosmosAuthOf } from '../../auth/cosmos-auth';
import { serviceBusAuthOf } from '../../auth/service-bus-auth';
import type { OpstreamConfig } from '../../config/config-types';
import { unknownVariables, unknownVariableWarning } from '../../config/nearest-setting';

const REQUIRED_FOR: Record<string, string[]> = { run: RUN_REQUIRED, leases: COSMOS_REQUIRED, start: [] };

/**
 * `opstream config check`: loads the configuration exactly as `run`/`start` would (defaults <
 * --config file < OPSTREAM_* environment < flags), validates it, and prints the settings in force
 * with their source; secrets masked. A bad value exits 78 with the same one-line message start-up gives;
 * an OPSTREAM_* variable that names no setting is a warning on stderr naming the nearest setting.
 */
export function registerConfigCheck(program: Command): void {
  const group = program.command('config').description('inspect the configuration');
  const check = group
    .command('check')
    .description(
      'validate the configuration (flags, OPSTREAM_* environment, --config file) and print the settings in force, secrets masked',
    )
    .option('--json', 'print the settings as a JSON array of {key, value, source, env, flag}')
    .addOption(new Option('--for <command>', 'also require the settings this command needs').choices(Object.keys(REQUIRED_FOR)))
    .addHelpText(
      'after',
      `
Examples:
  OPSTREAM_COSMOS_ENDPOINT=https://acct.documents.azure.com:443/ opstream config check --for run
  opstream config check --config opstream.json --json

With --for run, also checks the containers run would open (partition key, hash version, TTL) when
Cosmos DB answers, and says what to change.

Exit codes: 0 valid, 78 invalid or missing setting, or (--for run) a container missing or wrong (the message names it and how to fix it).`,
    );
  addConfigFlags(check).action(async (flags: Record<string, unknown>) => {
    const config = configFromFlags(flags, REQUIRED_FOR[(flags.for as string | undefined) ?? 'start']);
    // A variable that names no setting is ignored by every command: say so, and which one it likely meant.
    for (const unknown of unknownVariables(process.env)) process.stderr.write(`opstream: warning: ${unknownVariableWarning(unknown)}\n`);
    const settings = effectiveSettings(config, { file: flags.config as string | undefined, env: process.env, flags: settingFlags(flags) });
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(settings, null, 2)}\n`);
      return;
    }
    const table = formatTable(settings, [
      { header: 'SETTING', value: (s) => s.key },
      { header: 'VALUE', value: (s) => (s.value === undefined ? '-' : typeof s.value === 'string' ? s.value : JSON.stringify(s.value)) },
      { header: 'SOURCE', value: (s) => s.source },
      { header: 'ENVIRONMENT', value: (s) => s.env },
    ]);
    // For run: the containers it would open (partition key, hash version, TTL), then a second fleet
    // (another changefeed.name) on the same Operations container, read from the leases.
    const containers = flags.for === 'run' ? await containersLine(config) : { text: '', ok: true };
    const fleets = flags.for === 'run' && containers.ok ? await otherFleetsLine(config) : '';
    const head = `${table}\n${cosmosAuthLine(config)}${serviceBusAuthLine(config)}${containers.text}${fleets}`;
    if (!containers.ok) {
      process.stdout.write(head);
      throw new CliError('the containers do not meet what opstream run needs (above, with the fix)', EXIT.config);
    }
    process.stdout.write(`${head}configuration is valid${flags.for ? ` for "opstream ${String(flags.for)}"` : ''}\n`);
  });
}

/** Which Cosmos DB authentication `run` would use, and why (nothing when no endpoint is configured). */
function cosmosAuthLine(config: OpstreamConfig): string {
  if (!config.cosmos.endpoint && !config.cosmos.connectionString) return '';
  const auth = cosmosAuthOf(config);
  return `Cosmos DB auth: ${auth.kind === 'key' ? 'account key' : 'Entra ID'} (${auth.reason})\n`;
}

/** Which Service Bus authentication `run` would use, and why; never the key (nothing when Service Bus is off). */
function serviceBusAuthLine(config: OpstreamConfig): string {
  const auth = serviceBusAuthOf(config);
  if (!auth) return '';
  const via = auth.endpoint ? ` through ${auth.endpoint}` : '';
  return `Service Bus auth: ${auth.kind === 'entra-id' ? 'Entra ID' : 'SAS key'} for namespace ${auth.namespace}${via} (${auth.reason})\n`;
}

import type { OpstreamConfig } from '../config/config-types';
import { SETTINGS } from '../config/settings';

/**
 * The settings the inspection commands (`explain`, `leases`, `lag`, `dead-letters`) need to reach a
 * stack, always: the Cosmos DB endpoint and key, and Clusters Service (`explain` asks it); and,
 * when they are not the defaults those commands would assume, where the documents and leases are
 * (database, container names, the processor's name and lease expiry). Never `ops.token`, a secret:
 * `explain` without it says the owner refused, and how to give it.
 */
const ALWAYS = ['cosmos.endpoint', 'cosmos.key', 'clustersService.url'];
const WHEN_NOT_DEFAULT = [
  'cosmos.database',
  'cosmos.operationsContainer',
  'cosmos.resourcesContainer',
  'cosmos.subscriptionsContainer',
  'cosmos.locksContainer',
  'cosmos.deadLettersContainer',
  'leases.container',
  'leases.database',
  'changefeed.name',
  'changefeed.leaseExpirationMs',
];

/** `export OPSTREAM_…='…'` lines, ready to paste into a POSIX shell, for the settings above that `config` has. */
export function cliEnvLines(config: OpstreamConfig): string[] {
  const lines: string[] = [];
  for (const info of SETTINGS) {
    const always = ALWAYS.includes(info.key);
    if (!always && !WHEN_NOT_DEFAULT.includes(info.key)) continue;
    const value = info.path.reduce<unknown>((node, name) => (node as Record<string, unknown> | undefined)?.[name], config);
    if (value === undefined || value === null || value === '') continue;
    if (!always && value === info.default) continue;
    lines.push(`export ${info.env}=${shellQuoted(String(value))}`);
  }
  return lines;
}

/** Single-quoted for a POSIX shell (a quote inside becomes '\''). */
function shellQuoted(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

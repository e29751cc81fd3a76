import type { OpstreamConfig } from '../config/config-types';
import { containerIds, leaseDatabaseId } from '../app/container-layout';
import { ContainerSetupError } from '../cosmos';
import { withCosmos } from './cosmos-access';
import { accountEndpoint, probe } from './cosmos-probe';

/**
 * What `config check --for run` says of the containers `run` would open: each must exist with its
 * partition key (the Operations container: `/partitionKey`, hash version 2) and, where the protocol
 * needs one, a TTL; another default TTL is a warning (the Operations container: 7 days). Every
 * finding carries its fix. `ok` is false when `run` would refuse to start (a container wrong, or
 * missing without `cosmos.createContainers`), true when Cosmos DB cannot be reached (not checked,
 * as the line says).
 */
export async function containersLine(config: OpstreamConfig): Promise<{ text: string; ok: boolean }> {
  const unreachable = await probe(accountEndpoint(config));
  if (unreachable) return { text: `containers: not checked (${unreachable})\n`, ok: true };
  const warnings: string[] = [];
  try {
    await withCosmos(config, async () => undefined, { onContainerWarning: (w) => warnings.push(w) });
  } catch (err) {
    if (err instanceof ContainerSetupError) {
      // Key-authenticated development: run creates what is missing (never what exists wrong).
      if (err.missingOnly && config.cosmos.createContainers)
        return {
          text: `containers: some missing in database ${config.cosmos.database}; opstream run creates them, as cosmos.createContainers is on\n`,
          ok: true,
        };
      return { text: `error: ${err.message}\n`, ok: false };
    }
    return { text: `containers: not checked (${(err instanceof Error ? err.message : String(err)).split('\n')[0]})\n`, ok: true };
  }
  const ids = containerIds(config);
  const names = `${Object.values(ids).join(', ')} in database ${config.cosmos.database}${leaseDatabaseId(config) === config.cosmos.database ? '' : ` (${ids.leases} in ${leaseDatabaseId(config)})`}`;
  const lines = warnings.map((w) => `warning: ${w}\n`).join('');
  return {
    text: `${lines}containers: ${names}: partition keys${warnings.length ? '' : ', hash versions and TTLs'} as opstream needs them\n`,
    ok: true,
  };
}

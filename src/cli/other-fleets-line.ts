import type { OpstreamConfig } from '../config/config-types';
import { operationEventsLeasePrefix } from '../app/operation-events';
import { readLeaseReport } from '../inspect/lease-report';
import { withCosmos } from './cosmos-access';
import { accountEndpoint, probe } from './cosmos-probe';

/**
 * What `config check --for run` says of a second fleet: the processors of another name with live
 * leases on the Operations container this configuration would read (one query of the lease
 * container). Never fails the check: a Cosmos DB that cannot be read is said on the line.
 */
export async function otherFleetsLine(config: OpstreamConfig): Promise<string> {
  const own = [config.changefeed.name, operationEventsLeasePrefix(config)];
  // The SDK retries an account it cannot reach for minutes: a check that cannot connect says so at once.
  const unreachable = await probe(accountEndpoint(config));
  if (unreachable) return `other fleets: not checked (${unreachable})\n`;
  try {
    const report = await withCosmos(config, ({ containers }) =>
      readLeaseReport({
        feedContainer: containers.operations,
        leaseContainer: containers.leases,
        processorName: config.changefeed.name,
        leaseExpirationMs: config.changefeed.leaseExpirationMs,
        estimateLag: false,
      }),
    );
    const others = report.otherProcessors.filter((p) => !own.includes(p.processorName));
    if (others.length === 0) return `other fleets: none on container ${config.cosmos.operationsContainer}\n`;
    const list = others.map((p) => `${p.processorName} (${p.liveLeases} live lease(s), owners ${p.owners.join(', ')})`).join('; ');
    return (
      `warning: a second fleet reads container ${config.cosmos.operationsContainer}: ${list}; ` +
      `this configuration's changefeed.name (OPSTREAM_CHANGEFEED_NAME) is ${config.changefeed.name}: stop the other, or fix the name\n`
    );
  } catch (err) {
    return `other fleets: not checked (${(err instanceof Error ? err.message : String(err)).split('\n')[0]})\n`;
  }
}

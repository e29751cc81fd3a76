import { connect } from 'node:net';
import type { OpstreamConfig } from '../config/config-types';
import { operationEventsLeasePrefix } from '../app/operation-events';
import { readLeaseReport } from '../inspect/lease-report';
import { withCosmos } from './cosmos-access';

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

/** How long the TCP probe of the account may take. */
const PROBE_MS = 3000;

function accountEndpoint(config: OpstreamConfig): string | undefined {
  return config.cosmos.endpoint ?? /AccountEndpoint=([^;]+)/i.exec(config.cosmos.connectionString ?? '')?.[1];
}

/** Why the account's host cannot be connected to within PROBE_MS, or undefined when it can. */
function probe(endpoint: string | undefined): Promise<string | undefined> {
  if (!endpoint) return Promise.resolve('no cosmos.endpoint');
  const url = new URL(endpoint);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port, timeout: PROBE_MS });
    const done = (why: string | undefined): void => {
      socket.destroy();
      resolve(why);
    };
    socket.once('connect', () => done(undefined));
    socket.once('timeout', () => done(`${url.host} did not accept a connection within ${PROBE_MS / 1000} s`));
    socket.once('error', (err: NodeJS.ErrnoException) => done(`cannot connect to ${url.host}: ${err.code ?? err.message}`));
  });
}

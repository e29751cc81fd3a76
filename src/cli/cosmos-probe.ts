import { connect } from 'node:net';
import type { OpstreamConfig } from '../config/config-types';

/**
 * A TCP probe of the Cosmos DB account before a check reads it: the SDK retries an account it
 * cannot reach for minutes, a check that cannot connect says so at once.
 */

/** How long the TCP probe of the account may take. */
const PROBE_MS = 3000;

export function accountEndpoint(config: OpstreamConfig): string | undefined {
  return config.cosmos.endpoint ?? /AccountEndpoint=([^;]+)/i.exec(config.cosmos.connectionString ?? '')?.[1];
}

/** Why the account's host cannot be connected to within PROBE_MS, or undefined when it can. */
export function probe(endpoint: string | undefined): Promise<string | undefined> {
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

import { loadConfig } from '../config/load-config';
import { CliError, EXIT } from './exit-codes';

/**
 * Where a running instance's ops server is: `--url` when given, else the `ops.addr` setting
 * (OPSTREAM_OPS_ADDR, `--config` file, default 127.0.0.1:9464), the same value the instance
 * binds; a wildcard bind address is reached on loopback. The token: `--token`, else `ops.token`.
 */
export interface OpsEndpointFlags {
  url?: string;
  token?: string;
  config?: string;
}

export interface OpsEndpoint {
  url: string;
  token?: string;
}

export function resolveOpsEndpoint(flags: OpsEndpointFlags, env: NodeJS.ProcessEnv = process.env): OpsEndpoint {
  const needConfig = flags.url === undefined || flags.token === undefined;
  const config = needConfig ? loadConfig({ file: flags.config, env }) : undefined;
  const token = flags.token ?? config?.ops.token;
  if (flags.url !== undefined) return { url: normalise(flags.url), token };
  const addr = config?.ops.addr ?? '127.0.0.1:9464';
  const i = addr.lastIndexOf(':');
  let host = addr.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(addr.slice(i + 1));
  if (port === 0)
    throw new CliError(
      `setting ops.addr (${addr}) has port 0, so the instance picked a free port: pass --url http://HOST:PORT`,
      EXIT.usage,
    );
  if (host === '' || host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, token };
}

function normalise(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--url ${url} is not a URL (expected http://HOST:PORT)`, EXIT.usage);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new CliError(`--url ${url}: only http and https are supported`, EXIT.usage);
  return parsed.origin;
}

/** A fetch failure without an HTTP answer (refused, reset, DNS), as one line naming the server. */
export function unreachable(url: string, err: unknown): CliError {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new CliError(
    `cannot reach the ops server at ${url} (${why}); is opstream running? Point at it with --url or OPSTREAM_OPS_ADDR`,
    EXIT.unavailable,
    { cause: err },
  );
}

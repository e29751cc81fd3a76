import { once } from 'events';
import { Command, InvalidArgumentError } from 'commander';
import { STREAMS } from '../../ops/stream-names';
import { resolveOpsEndpoint, type OpsEndpointFlags } from '../ops-endpoint';
import { formatTapLine } from '../tap-line';
import { tapEvents } from '../tap-client';
import { colours } from '../terminal';

interface TapFlags extends OpsEndpointFlags {
  status?: string;
  subscription?: string;
  resource?: string;
  json?: boolean;
  limit?: number;
}

const positive = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number >= 1');
  return n;
};

/**
 * `opstream tap <stream>`: follows one named stream of a running instance over its ops server
 * (`/streams/<name>`), one line per event, until Ctrl-C. Output waits for stdout to drain, so a
 * slow pipe makes this client slow, and the server drops events for it, never the pipeline.
 */
export function registerTap(program: Command): void {
  program
    .command('tap')
    .description('follow a named stream of a running instance (its ops server) live, one line per event; Ctrl-C stops')
    .argument('<stream>', `${STREAMS.join(', ')}, or "*" for all`)
    .option('--status <status>', 'only events of operations with this status (e.g. Accepted, Failed)')
    .option('--subscription <id>', 'only events of this subscription')
    .option('--resource <arm-id>', 'only events of this ARM resource id, or of ids starting with it')
    .option('--json', 'print each event as one JSON object per line')
    .option('--limit <n>', 'exit 0 after this many events', positive)
    .option('--url <url>', 'ops server of the instance (default: http://<ops.addr>, from OPSTREAM_OPS_ADDR or --config)')
    .option('--token <token>', 'bearer token of the ops server (default: ops.token, env OPSTREAM_OPS_TOKEN)')
    .option('--config <file>', 'configuration file to read ops.addr and ops.token from')
    .addHelpText(
      'after',
      `
Streams:
  changes        every change-feed document, before validation
  operations     every valid operation read from the feed or a relist
  active         operations handed to the processors (with reactionMs on first sight)
  decisions      what a processor concluded (done, again after N ms, failed)
  transitions    status changes written
  notifications  ARM notifications delivered or failed
  dead-letters   documents set aside, with the reason
  leases         change-feed lease events (acquired, released, lost, split)

Examples:
  opstream tap transitions
  opstream tap '*' --subscription 0b3d1f5a-8a4c-4f4e-9c2b-1d2e3f4a5b6c --json | jq .
  opstream tap decisions --status Provisioning --url http://127.0.0.1:9464

Exit codes: 0 Ctrl-C or --limit reached, 2 unknown stream, 69 ops server unreachable or stream ended,
77 token refused, 78 bad configuration.`,
    )
    .action(async (stream: string, flags: TapFlags) => {
      const endpoint = resolveOpsEndpoint(flags);
      const abort = new AbortController();
      const stop = (): void => abort.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const out = process.stdout;
      out.on('error', stop); // EPIPE: the reader went away (| head)
      const paint = colours(out);
      let seen = 0;
      try {
        const filter = { status: flags.status, subscription: flags.subscription, resource: flags.resource };
        const connected = (url: URL): void => void process.stderr.write(`tap: following ${url.pathname.slice('/streams/'.length)} at ${endpoint.url}${url.search ? ` (${url.search.slice(1)})` : ''}; Ctrl-C stops\n`);
        for await (const event of tapEvents(endpoint, stream, filter, abort.signal, connected)) {
          const line = flags.json ? JSON.stringify(event) : formatTapLine(event, paint);
          if (!out.write(`${line}\n`)) await Promise.race([once(out, 'drain'), once(abort.signal, 'abort')]);
          if (flags.limit !== undefined && ++seen >= flags.limit) break;
          if (abort.signal.aborted) break;
        }
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        abort.abort();
      }
    });
}

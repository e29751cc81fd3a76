import { once } from 'events';
import { Command, InvalidArgumentError } from 'commander';
import { STREAMS } from '../../ops/stream-names';
import { resolveOpsEndpoint, type OpsEndpointFlags } from '../ops-endpoint';
import { CliError, EXIT } from '../exit-codes';
import { formatTapLine } from '../tap-line';
import { tapEvents } from '../tap-client';
import { colours } from '../terminal';
import { loadConfig } from '../../config/load-config';
import type { TapEvent } from '../../ops/taps';
import { TAP_STREAM, TAP_SUBSCRIPTION, topicEvents, type TopicTapOptions } from '../topic-tap';
import { connectServiceBus } from '../../auth/service-bus-auth';

interface TapFlags extends OpsEndpointFlags {
  status?: string;
  subscription?: string;
  resource?: string;
  json?: boolean;
  limit?: number;
  serviceBusConnectionString?: string;
  serviceBusNamespace?: string;
  serviceBusEndpoint?: string;
  topicSubscription: string;
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
    .argument('<stream>', `${STREAMS.join(', ')}, or "*" for all; or ${TAP_STREAM}: the Service Bus topic of Operation events`)
    .option('--status <status>', 'only events of operations with this status (e.g. Accepted, Failed)')
    .option('--subscription <id>', 'only events of this subscription')
    .option('--resource <arm-id>', 'only events of this ARM resource id, or of ids starting with it')
    .option('--json', 'print each event as one JSON object per line')
    .option('--limit <n>', 'exit 0 after this many events', positive)
    .option('--url <url>', 'ops server of the instance (default: http://<ops.addr>, from OPSTREAM_OPS_ADDR or --config)')
    .option('--token <token>', 'bearer token of the ops server (default: ops.token, env OPSTREAM_OPS_TOKEN)')
    .option('--config <file>', 'configuration file to read ops.addr and ops.token (and the serviceBus settings) from')
    .option(
      '--service-bus-connection-string <cs>',
      `for ${TAP_STREAM}: the namespace by SAS key (default: serviceBus.connectionString, env OPSTREAM_SERVICE_BUS_CONNECTION_STRING)`,
    )
    .option(
      '--service-bus-namespace <host>',
      `for ${TAP_STREAM}: the namespace by Entra ID, e.g. myns.servicebus.windows.net (default: serviceBus.namespace, env OPSTREAM_SERVICE_BUS_NAMESPACE)`,
    )
    .option(
      '--service-bus-endpoint <url>',
      `for ${TAP_STREAM}: connect here instead of the namespace's host, amqps://host:port (default: serviceBus.endpoint, env OPSTREAM_SERVICE_BUS_ENDPOINT)`,
    )
    .option(
      '--topic-subscription <name>',
      `for ${TAP_STREAM}: the subscription to read; its messages are consumed, so use one nobody else reads (npm start declares "${TAP_SUBSCRIPTION}")`,
      TAP_SUBSCRIPTION,
    )
    .addHelpText(
      'after',
      `
Streams:
  changes        every change-feed document, before validation
  operations     every valid operation read from the feed or a relist
  active         operations handed to the processors (with reactionMs on first sight)
  decisions      what a processor concluded (done, again after N ms, failed)
  transitions    status changes written
  notifications  ARM notifications delivered, failed or given up
  dead-letters   documents set aside, with the reason
  leases         change-feed lease events (acquired, released, lost, split)
  ${TAP_STREAM} Operation transitions as published on Service Bus (topic serviceBus.operationEventsTopic),
                 read through --topic-subscription, without an instance's ops server

Examples:
  opstream tap transitions
  opstream tap '*' --subscription 0b3d1f5a-8a4c-4f4e-9c2b-1d2e3f4a5b6c --json | jq .
  opstream tap decisions --status Provisioning --url http://127.0.0.1:9464
  opstream tap ${TAP_STREAM} --topic-subscription tap --status Failed

Exit codes: 0 Ctrl-C or --limit reached, 2 unknown stream, 69 ops server unreachable or stream ended,
77 token refused, 78 bad configuration.`,
    )
    .action(async (stream: string, flags: TapFlags) => {
      const filter = { status: flags.status, subscription: flags.subscription, resource: flags.resource };
      const topic = stream === TAP_STREAM ? await topicSource(flags, filter) : undefined;
      const endpoint = topic ? undefined : resolveOpsEndpoint(flags);
      const abort = new AbortController();
      const stop = (): void => abort.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const out = process.stdout;
      out.on('error', stop); // EPIPE: the reader went away (| head)
      const paint = colours(out);
      let seen = 0;
      try {
        let events: AsyncIterable<TapEvent>;
        if (topic) {
          const connected = (): void =>
            void process.stderr.write(`tap: following topic ${topic.topic} through its subscription ${topic.subscription}; Ctrl-C stops\n`);
          events = topicEvents(topic, abort.signal, connected);
        } else {
          const ops = endpoint as NonNullable<typeof endpoint>;
          const connected = (url: URL): void =>
            void process.stderr.write(
              `tap: following ${url.pathname.slice('/streams/'.length)} at ${ops.url}${url.search ? ` (${url.search.slice(1)})` : ''}; Ctrl-C stops\n`,
            );
          const gap = (dropped: number): void =>
            void process.stderr.write(`tap: ${dropped} events missed here: this client read slower than they came\n`);
          events = tapEvents(ops, stream, filter, abort.signal, connected, gap);
        }
        for await (const event of events) {
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

/**
 * Where `tap operation-events` reads: the namespace and topic from flags or the serviceBus settings,
 * validated as `run` validates them; under Entra ID a first token is obtained (a missing identity exits 78).
 */
async function topicSource(
  flags: TapFlags,
  filter: { status?: string; subscription?: string; resource?: string },
): Promise<TopicTapOptions> {
  const given = {
    'serviceBus.connectionString': flags.serviceBusConnectionString,
    'serviceBus.namespace': flags.serviceBusNamespace,
    'serviceBus.endpoint': flags.serviceBusEndpoint,
  };
  const config = loadConfig({ file: flags.config, env: process.env, flags: given });
  const access = await connectServiceBus(config);
  if (!access) {
    throw new CliError(
      `${TAP_STREAM} is read from Service Bus: give --service-bus-namespace (Entra ID) or --service-bus-connection-string, or set OPSTREAM_SERVICE_BUS_NAMESPACE or OPSTREAM_SERVICE_BUS_CONNECTION_STRING (npm start prints its own)`,
      EXIT.config,
    );
  }
  return { access, topic: config.serviceBus.operationEventsTopic, subscription: flags.topicSubscription, filter };
}

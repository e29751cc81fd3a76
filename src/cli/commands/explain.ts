import { Command } from 'commander';
import { ClustersServiceClient } from '../../clusters-service';
import { askOwner } from '../../inspect/explain/ask-owner';
import { explain, OperationNotFoundError } from '../../inspect/explain/gather';
import { ownerTarget, parseTrustedOps, TrustedOpsSettingError, type TrustedOps } from '../../inspect/explain/owner-trust';
import { span } from '../../inspect/explain/diagnosis';
import { csKindWords } from '../../inspect/explain/cs-kind';
import type { ExplainReport } from '../../inspect/explain/report';
import { addConfigFlags, configFromFlags, COSMOS_REQUIRED } from '../config-flags';
import { withCosmos } from '../cosmos-access';
import type { OpstreamConfig } from '../../config/config-types';
import { CliError, EXIT } from '../exit-codes';
import { colours, type Paint } from '../terminal';
import { validate } from '../../schemas/validator';

/** How long Clusters Service may take to answer. */
const CS_TIMEOUT_MS = 5000;

/**
 * `opstream explain <operation id | ARM resource id>`: where an operation is and why, in one line
 * first, then the documents, the lock, dead letters, the range's lease and owner, what the owner
 * does with it (its ops server's `/api/operations/<id>`) and what Clusters Service says now.
 */
export function registerExplain(program: Command): void {
  const command = program
    .command('explain')
    .description(
      'say where an operation is and why: its documents, lock, dead letters, lease and owner, what the owner does with it, what Clusters Service says',
    )
    .argument(
      '<id>',
      'an operation id, the ARM id of its operation status, or the ARM id of a cluster or node pool (its active, else newest operation)',
    )
    .option('--json', 'print the whole report as JSON')
    .option(
      '--owner-url <url>',
      "ops server of the range's owner, when the address it wrote into its lease is not reachable from here (e.g. through kubectl port-forward)",
    )
    .addHelpText(
      'after',
      `
Reads Cosmos DB with the settings "opstream run" takes (flags, OPSTREAM_* environment or --config);
asks the instance that owns the operation's range at the ops server address it wrote into its lease,
with the bearer token ops.token (--ops-token, OPSTREAM_OPS_TOKEN), only when that address is loopback
or listed in ops.trustedUrls (--ops-trusted-urls, OPSTREAM_OPS_TRUSTED_URLS), or given by --owner-url,
and never over plain http beyond loopback; asks Clusters Service when clustersService.url is set.
Nothing is written.

Examples:
  opstream explain 7f1c1a52-3c0e-4a8e-9d7b-0c1f3c7f9a10
  opstream explain /subscriptions/0b3d…/resourceGroups/rg/providers/Microsoft.RedHatOpenShift/hcpOpenShiftClusters/c1 --json

Exit codes: 0 explained, 66 no such operation, 69 Cosmos unreachable, 78 bad or missing settings.`,
    );
  addConfigFlags(command).action(async (query: string, flags: Record<string, unknown>) => {
    const config = configFromFlags(flags, COSMOS_REQUIRED);
    const ownerUrl = flags.ownerUrl === undefined ? undefined : originOf(String(flags.ownerUrl));
    const trusted = trustedOps(config.ops.trustedUrls);
    const cs = config.clustersService.url
      ? new ClustersServiceClient({
          baseUrl: config.clustersService.url,
          token: config.clustersService.token,
          requestTimeoutMs: CS_TIMEOUT_MS,
          retry: { retries: 0 },
        })
      : undefined;
    const report = await explainWithSettings(config, query, { ownerUrl, trusted }, cs);
    // What scripts read is what the schema says.
    validate('explainReport', report);
    process.stdout.write(
      flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${renderReport(report, Date.parse(report.at), colours(process.stdout))}\n`,
    );
  });
}

/**
 * `explain`'s report for `query` with the CLI's settings (also what `operations nudge` starts from):
 * the owner is asked only where the token may go; an unknown operation exits 66.
 */
export async function explainWithSettings(
  config: OpstreamConfig,
  query: string,
  owner: { ownerUrl: string | undefined; trusted: TrustedOps },
  cs?: ClustersServiceClient,
): Promise<ExplainReport> {
  const { ownerUrl, trusted } = owner;
  try {
    return await withCosmos(config, ({ containers }) =>
      explain(query, {
        containers,
        processorName: config.changefeed.name,
        leaseExpirationMs: config.changefeed.leaseExpirationMs,
        askOwner: (url, id) => askTrustedOwner(url, url === ownerUrl, trusted, id, config.ops.token),
        ownerUrl,
        ...(cs ? { cs } : {}),
      }),
    );
  } catch (err) {
    if (err instanceof OperationNotFoundError) throw new CliError(err.message, EXIT.noInput);
    throw err;
  }
}

/** Asks the owner at `url` only when the token may go there (the refusal becomes the owner's error line). */
async function askTrustedOwner(url: string, named: boolean, trusted: TrustedOps, id: string, token: string | undefined): Promise<unknown> {
  const target = ownerTarget(url, named, trusted);
  if (!target.ok) throw new Error(target.reason);
  return askOwner(target.origin, id, token);
}

export function trustedOps(list: string | undefined): TrustedOps {
  try {
    return parseTrustedOps(list);
  } catch (err) {
    if (err instanceof TrustedOpsSettingError) throw new CliError(err.message, EXIT.config);
    throw err;
  }
}

export function originOf(url: string): string {
  const target = ownerTarget(url, true, parseTrustedOps(undefined));
  if (target.ok) return target.origin;
  throw new CliError(
    `--owner-url ${url}: ${target.reason} (expected https://HOST:PORT, or http://localhost:PORT through kubectl port-forward)`,
    EXIT.usage,
  );
}

/** The report for a person: the diagnosis, then one short block per source. */
function renderReport(r: ExplainReport, now: number, paint: Paint): string {
  const lines: string[] = [paint('bold', r.diagnosis), ''];
  const row = (label: string, text: string): void => void lines.push(`${paint('gray', label.padEnd(17))}${text}`);
  const ago = (t: string): string => `${span(now - Date.parse(t))} ago`;
  const op = r.operation;
  if (op) {
    row('operation', `${op.id}  ${op.request}  ${op.status}`);
    row('  resource', op.resourceId);
    row('  started', `${op.startTime} (${ago(op.startTime)}); last transition ${ago(op.lastTransitionTime)}`);
    if (op.internalId) row('  internal id', op.internalId);
    if (op.error) row('  error', `${op.error.code}: ${op.error.message}${op.error.target ? ` (target ${op.error.target})` : ''}`);
    const n = op.notification;
    const d = n.delivery;
    const answered = d ? (d.httpStatus !== undefined ? `HTTP ${d.httpStatus}` : 'no answer') : '';
    const attempts = d ? `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}` : '';
    const notification =
      n.state === 'sent'
        ? d
          ? `ARM told at ${d.at} (${ago(d.at)}) after ${attempts} (${answered})${d.by ? ` by ${d.by.split('#')[0]}` : ''}`
          : 'ARM told'
        : n.state === 'given-up'
          ? `given up (${n.givenUp?.reason}) ${n.givenUp ? ago(n.givenUp.at) : ''}: ${n.givenUp?.detail}${d ? ` (after ${attempts})` : ''}`
          : n.state === 'pending'
            ? `pending to ${n.target ?? '?'}${n.claim ? `, claimed by ${n.claim.owner} until ${n.claim.until}` : ''}`
            : n.state === 'later'
              ? `to ${n.target ?? '?'} once it ends`
              : 'no notification URI (ARM asked for none, or it was told before deliveries were recorded)';
    row('  notification', notification);
    if (d && n.state === 'pending')
      row('  delivery', `failing: attempt ${d.attempts} ${ago(d.at)} (${answered})${d.answer ? `: ${d.answer}` : ''}`);
  }
  if (r.invalidOperation) row('operation', `${r.invalidOperation.id}: invalid, ${r.invalidOperation.field} ${r.invalidOperation.message}`);
  if (r.resource) {
    const res = r.resource;
    const active = res.activeOperationId ? (res.activeOperationId === op?.id ? 'this one' : res.activeOperationId) : 'none';
    row(
      'resource',
      `provisioningState ${res.provisioningState}; active operation ${active}${res.internalId ? `; CS ${res.internalId}` : ''}${res.pendingInternalId ? `; pending CS id ${res.pendingInternalId}` : ''}`,
    );
  } else if (op) row('resource', 'no Resource document');
  if (r.activeOperation) row('  active', `${r.activeOperation.request} ${r.activeOperation.id} (${r.activeOperation.status})`);
  if (r.lock) {
    const l = r.lock;
    row(
      'lock',
      l.held
        ? `subscription ${l.subscriptionId} held by ${l.owner}${l.expiresAt ? `, expires in ${span(Date.parse(l.expiresAt) - now)} unless renewed` : ''}`
        : `subscription ${l.subscriptionId} free`,
    );
  }
  row('dead letters', r.deadLetters.length ? '' : 'none');
  for (const d of r.deadLetters) row('', `${d.id} (${d.reason}, ${ago(d.at)}): ${d.error.message}`);
  if (r.lease) {
    const l = r.lease;
    const life = l.expired
      ? paint('red', `expired ${span(now - Date.parse(l.expiresAt))} ago`)
      : `alive, expires in ${span(Date.parse(l.expiresAt) - now)} unless renewed`;
    row(
      'feed range',
      `lease ${l.leaseToken}; owner ${l.owner ?? '(released)'}; last written ${ago(l.lastWrite)}; ${l.owner ? life : 'free to take'}`,
    );
  } else row('feed range', 'no lease covers it');
  if (r.owner) {
    const o = r.owner;
    row('owner', `${o.instance}${o.url ? ` at ${o.url}` : ''}${o.answeredBy ? ` (answered by ${o.answeredBy})` : ''}`);
    if (o.error) row('', paint('yellow', o.error));
    if (o.ask && !o.state) row('', o.ask);
    const s = o.state;
    if (s) {
      const when =
        s.state === 'handling'
          ? `since ${ago(s.handlingSince ?? s.at)}`
          : s.dueAt
            ? `due ${Date.parse(s.dueAt) > now ? `in ${span(Date.parse(s.dueAt) - now)}` : 'now'}`
            : '';
      row(
        '  state',
        `${s.state}${s.reason ? ` (${s.reason})` : ''} ${when}${s.waitingForLockSince ? `; waiting for the lock since ${ago(s.waitingForLockSince)}` : ''}`,
      );
      if (s.consecutiveErrors)
        row('  errors', `${s.consecutiveErrors} in a row (${s.countedAttempts ?? 0} counted towards pipeline.maxHandlerAttempts)`);
      if (s.lastHandling)
        row(
          '  last handling',
          `${ago(s.lastHandling.at)}: ${s.lastHandling.result}${s.lastHandling.note ? `, ${s.lastHandling.note}` : ''}${s.lastHandling.error ? `, ${s.lastHandling.error}` : ''}`,
        );
      const c = s.clustersService;
      if (c)
        row(
          '  CS as seen',
          `${c.state ?? '?'}${c.stateSince ? ` since ${ago(c.stateSince)}` : ''}${c.lastCheckAt ? `, checked ${ago(c.lastCheckAt)}` : ''}${c.description && c.description !== c.state ? ` (${c.description})` : ''}`,
        );
    }
  }
  if (r.clustersService) {
    const c = r.clustersService;
    const kind = csKindWords(c.kind);
    row(
      'Clusters Service',
      c.error
        ? paint('yellow', `${kind} ${c.href}: ${c.error}`)
        : c.found === false
          ? `${kind} ${c.href}: not found (404)`
          : `${kind} ${c.href}: ${c.state}${c.description && c.description !== c.state ? ` (${c.description})` : ''}`,
    );
  }
  return lines.join('\n');
}

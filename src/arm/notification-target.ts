import { lookup } from 'dns/promises';
import { isIP } from 'net';
import { addressKind, type AddressKind } from '../util/address-kind';

/**
 * Whether a document's `notificationUri` names a place opstream may POST to. The frontend copies it
 * from a request header, so it is not trusted to choose where opstream connects: the URI must be
 * https to a host under one of the configured suffixes (ARM's management hosts), on the default
 * port, without credentials; every address its name resolves to must be public. The development
 * switch (`notifications.allowLoopback`) also lets loopback through, over http too; link-local,
 * private and platform addresses stay refused. The connection then goes to the addresses checked
 * here, never to a second lookup (a name that re-resolves elsewhere cannot slip past the check).
 */
export interface NotificationTargetPolicy {
  /** Host names (lower case, no trailing dot) a URI's host must equal or end in (after a dot). */
  readonly allowedHostSuffixes: readonly string[];
  readonly allowLoopback: boolean;
}

/** Why a notificationUri is not used; each is final (a retry would be refused the same way). */
export type TargetRefusalReason = 'uri' | 'scheme' | 'host' | 'address';

export interface TargetRefusal {
  readonly reason: TargetRefusalReason;
  /** Says what was refused and which setting decides; names the origin only (never a path or query, which may carry a token). */
  readonly detail: string;
}

export interface NotificationTarget {
  readonly url: URL;
  /** The host to connect to: a name, or an IP address without brackets. */
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  /** scheme://host:port, for logs and records. */
  readonly origin: string;
  /** http is allowed only to loopback: every resolved address must then be loopback. */
  readonly loopbackOnly: boolean;
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address a name resolves to (as the system resolver sees it: /etc/hosts, then DNS). */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** The comma-separated setting as the policy's list (lower case, no blanks, no trailing dots). */
export function parseHostSuffixes(setting: string): string[] {
  return setting
    .split(',')
    .map((s) => s.trim().toLowerCase().replace(/\.$/, ''))
    .filter((s) => s !== '');
}

const LOOPBACK_NAME = /(^|\.)localhost$/;

/** The checks that need no lookup: the URI's shape, scheme, host and port. */
export function checkNotificationUri(
  uri: string,
  policy: NotificationTargetPolicy,
): { ok: true; target: NotificationTarget } | { ok: false; refusal: TargetRefusal } {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return refused('uri', 'notificationUri is not an absolute URI');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return refused('scheme', `notificationUri scheme ${url.protocol} is not https`);
  const secure = url.protocol === 'https:';
  const origin = `${url.protocol}//${url.host}`;
  if (url.username !== '' || url.password !== '') return refused('uri', `notificationUri to ${origin} carries credentials`);
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const literal = isIP(host) !== 0;
  const loopbackHost = literal ? addressKind(host) === 'loopback' : LOOPBACK_NAME.test(host);
  const devLoopback = policy.allowLoopback && loopbackHost;
  if (literal && !devLoopback) {
    const kind = addressKind(host);
    return kind === 'public'
      ? refused('host', `notificationUri names the address ${host}, not a host under notifications.allowedHostSuffixes`)
      : refused('address', `notificationUri names ${describeAddress(host, kind)}${kind === 'loopback' ? LOOPBACK_HINT : ''}`);
  }
  if (!devLoopback && !policy.allowedHostSuffixes.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) {
    return refused(
      'host',
      `notificationUri host ${host} is not under notifications.allowedHostSuffixes (${policy.allowedHostSuffixes.join(', ')})`,
    );
  }
  if (!secure && !devLoopback) return refused('scheme', `notificationUri to ${origin} is not https${loopbackHost ? LOOPBACK_HINT : ''}`);
  if (secure && url.port !== '' && !devLoopback)
    return refused('uri', `notificationUri to ${origin} names port ${url.port}; ARM is reached on 443`);
  const port = url.port !== '' ? Number(url.port) : secure ? 443 : 80;
  return { ok: true, target: { url, host, port, secure, origin, loopbackOnly: !secure } };
}

/**
 * The addresses to connect to: the host's own when it is an IP address, else every address it
 * resolves to, each of which must be allowed. A failed lookup throws (retried like a connection
 * failure); a refused address is final.
 */
export async function resolveNotificationTarget(
  target: NotificationTarget,
  policy: NotificationTargetPolicy,
  resolver: Resolver,
): Promise<{ ok: true; addresses: readonly ResolvedAddress[] } | { ok: false; refusal: TargetRefusal }> {
  const version = isIP(target.host);
  const addresses =
    version !== 0 ? [{ address: target.host, family: version === 6 ? (6 as const) : (4 as const) }] : await resolver(target.host);
  if (addresses.length === 0) throw new Error(`${target.host} resolves to no address`);
  for (const { address } of addresses) {
    const kind = addressKind(address);
    const allowed = target.loopbackOnly
      ? kind === 'loopback' && policy.allowLoopback
      : kind === 'public' || (kind === 'loopback' && policy.allowLoopback);
    if (!allowed)
      return refused('address', `${target.host} resolves to ${describeAddress(address, kind)}${kind === 'loopback' ? LOOPBACK_HINT : ''}`);
  }
  return { ok: true, addresses };
}

const LOOPBACK_HINT = ' (notifications.allowLoopback allows loopback in development)';

function describeAddress(address: string, kind: AddressKind): string {
  return `${address}, ${kind === 'public' ? 'a public' : kind === 'reserved' ? 'a reserved' : kind === 'platform' ? 'an Azure platform' : `a ${kind}`} address`;
}

function refused(reason: TargetRefusalReason, detail: string): { ok: false; refusal: TargetRefusal } {
  return { ok: false, refusal: { reason, detail } };
}

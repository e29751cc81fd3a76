import { isIP } from 'node:net';
import { addressKind } from '../../util/address-kind';

/**
 * Which ops servers `opstream explain` sends `ops.token` to. The address of a range's owner comes from
 * its lease document (`properties["opstream.opsUrl"]`), which anyone who can write the Leases container
 * can set: followed blindly, it would hand them the token. So the token goes only to an address the
 * operator named (`--owner-url`), a loopback one, or one `ops.trustedUrls` lists; and never over plain
 * http beyond loopback, where anyone on the path reads it.
 */

/** `ops.trustedUrls`, parsed: origins (`https://host:port`, exact) and host names (any https port). */
export interface TrustedOps {
  readonly origins: ReadonlySet<string>;
  readonly hosts: ReadonlySet<string>;
}

export class TrustedOpsSettingError extends Error {}

export function parseTrustedOps(list: string | undefined): TrustedOps {
  const origins = new Set<string>();
  const hosts = new Set<string>();
  for (const entry of (list ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    if (entry.includes('://')) {
      const url = safeUrl(entry);
      if (!url || url.protocol !== 'https:' || url.username || url.password || (url.pathname !== '/' && url.pathname !== ''))
        throw new TrustedOpsSettingError(`ops.trustedUrls: ${entry} is not an https origin (such as https://opstream-0.ops.example:9464)`);
      origins.add(url.origin);
    } else if (/^[a-z0-9.-]+$/i.test(entry)) hosts.add(entry.toLowerCase());
    else throw new TrustedOpsSettingError(`ops.trustedUrls: ${entry} is neither an https origin nor a host name`);
  }
  return { origins, hosts };
}

export type OwnerTarget = { ok: true; origin: string } | { ok: false; reason: string };

/** Whether the token may go to `url`: `named` when the operator gave it (`--owner-url`), else it came from a lease. */
export function ownerTarget(url: string, named: boolean, trusted: TrustedOps): OwnerTarget {
  const parsed = safeUrl(url);
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.username || parsed.password)
    return { ok: false, reason: 'not an http(s) URL without credentials' };
  const origin = parsed.origin;
  const loopback = isLoopbackHost(parsed.hostname);
  if (parsed.protocol === 'http:' && !loopback)
    return { ok: false, reason: `${origin} is plain http beyond loopback: the token would cross the network in clear; use https` };
  if (named || loopback || trusted.origins.has(origin) || trusted.hosts.has(parsed.hostname.toLowerCase())) return { ok: true, origin };
  return {
    ok: false,
    reason:
      `the lease names ${origin}, which is neither loopback nor listed in ops.trustedUrls (OPSTREAM_OPS_TRUSTED_URLS): ` +
      'not asked, since whoever can write the Leases container chooses that address; pass --owner-url or list it in ops.trustedUrls',
  };
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && addressKind(host) === 'loopback';
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

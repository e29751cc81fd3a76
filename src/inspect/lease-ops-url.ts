/**
 * Where a lease's owner answers for its ops server: the owner writes these entries into the lease's
 * `properties` when it acquires the lease (see the change feed's `leaseProperties`), so that
 * `opstream explain` can ask the instance that handles a range. The owner's name is written beside
 * the URL: a lease taken over by a processor that writes neither (a .NET one) keeps the previous
 * owner's entries, which must then be ignored. The host (a pod's name on Kubernetes) lets `explain`
 * name the port-forward that reaches the owner when its URL cannot be asked from where it runs.
 */
const LEASE_OPS_URL = 'opstream.opsUrl';
const LEASE_OPS_OWNER = 'opstream.opsOwner';
const LEASE_OPS_HOST = 'opstream.opsHost';

export function leaseOpsProperties(opsUrl: string, owner: string, host: string): Record<string, string> {
  return { [LEASE_OPS_URL]: opsUrl, [LEASE_OPS_OWNER]: owner, [LEASE_OPS_HOST]: host };
}

type LeaseLike = { Owner?: string | null; properties?: Record<string, string> };

/** The ops URL the lease's current owner advertised, if it did. */
export function leaseOpsUrl(lease: LeaseLike): string | undefined {
  const p = ownersProperties(lease);
  const url = p?.[LEASE_OPS_URL];
  return typeof url === 'string' && /^https?:\/\//.test(url) ? url : undefined;
}

/** The host name the lease's current owner runs on (its pod's name on Kubernetes), if it wrote it. */
export function leaseOpsHost(lease: LeaseLike): string | undefined {
  const host = ownersProperties(lease)?.[LEASE_OPS_HOST];
  return typeof host === 'string' && /^[a-z0-9.-]{1,253}$/i.test(host) ? host : undefined;
}

function ownersProperties(lease: LeaseLike): Record<string, string> | undefined {
  const p = lease.properties;
  return lease.Owner && p && p[LEASE_OPS_OWNER] === lease.Owner ? p : undefined;
}

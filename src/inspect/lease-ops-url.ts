/**
 * Where a lease's owner answers for its ops server: the owner writes these two entries into the
 * lease's `properties` when it acquires the lease (see the change feed's `leaseProperties`), so that
 * `opstream explain` can ask the instance that handles a range. The owner's name is written beside
 * the URL: a lease taken over by a processor that writes neither (a .NET one) keeps the previous
 * owner's entries, which must then be ignored.
 */
const LEASE_OPS_URL = 'opstream.opsUrl';
const LEASE_OPS_OWNER = 'opstream.opsOwner';

export function leaseOpsProperties(opsUrl: string, owner: string): Record<string, string> {
  return { [LEASE_OPS_URL]: opsUrl, [LEASE_OPS_OWNER]: owner };
}

/** The ops URL the lease's current owner advertised, if it did. */
export function leaseOpsUrl(lease: { Owner?: string | null; properties?: Record<string, string> }): string | undefined {
  const p = lease.properties;
  if (!lease.Owner || !p || p[LEASE_OPS_OWNER] !== lease.Owner) return undefined;
  const url = p[LEASE_OPS_URL];
  return typeof url === 'string' && /^https?:\/\//.test(url) ? url : undefined;
}

import { hostname } from 'os';
import { leaseOpsProperties } from '../inspect/lease-ops-url';

/**
 * Where this instance's ops server answers, written into each lease it acquires: `opstream explain`
 * asks a range's owner there. `ops.advertiseUrl` when set (a pod's address on Kubernetes), else the
 * address the server bound, a wildcard one replaced by the host's name. Empty until the server listens.
 */
export function advertisedOps(instanceName: string, advertiseUrl: string | undefined) {
  let url: string | undefined;
  return {
    /** The server listens at `bound`; returns the URL the leases advertise. */
    listening(bound: string): string {
      url = advertiseUrl ? new URL(advertiseUrl).origin : wildcardToHost(bound);
      return url;
    },
    leaseProperties: (): Record<string, string> => (url ? leaseOpsProperties(url, instanceName, hostname()) : {}),
  };
}

function wildcardToHost(bound: string): string {
  const parsed = new URL(bound);
  if (parsed.hostname === '0.0.0.0' || parsed.hostname === '[::]') parsed.hostname = hostname();
  return parsed.origin;
}

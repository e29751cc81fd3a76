import { networkInterfaces } from 'os';
import { isLoopback } from '../config/load-config';

/**
 * The Host names a listener without a token answers (DNS rebinding). A page in a browser on this
 * machine can point its own name at 127.0.0.1 and then read a loopback server as if it were its
 * own origin; its requests still carry that name as Host. So only these are answered: loopback
 * names and addresses, the listener's own bind address, and for a wildcard bind (0.0.0.0, ::) every
 * address of the machine: kubelet probes and Prometheus send the pod IP.
 */
export function hostAllowed(
  host: string | undefined,
  bindHost: string,
  machineAddresses: () => readonly string[] = localAddresses,
): boolean {
  const name = hostname(host);
  if (name === undefined) return false;
  if (isLoopback(name)) return true;
  const bind = bindHost === '' ? '' : hostname(bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost);
  if (bind === undefined) return false;
  if (name === bind) return true;
  if (bind !== '' && bind !== '0.0.0.0' && bind !== '::') return false;
  return machineAddresses().some((address) => hostname(address.includes(':') ? `[${address}]` : address) === name);
}

/**
 * The host name of a Host header as a browser would have resolved it (lower case, IPv4 in dotted
 * decimal, IPv6 compressed, no brackets), or undefined when it is not a plain `name[:port]`: no
 * user info, path or second colon may hide another host behind the one that is checked.
 */
function hostname(host: string | undefined): string | undefined {
  if (!host || !/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return undefined;
  }
}

function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

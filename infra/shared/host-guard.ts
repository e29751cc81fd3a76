import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isIP } from 'node:net';

/**
 * DNS rebinding: a web page open in a browser on this machine can point its own name at 127.0.0.1 and
 * then read a loopback server as if it were its own site; its requests still carry that name as `Host`.
 * So a stand-in answers only `Host` names that mean this machine: loopback names and addresses
 * (`localhost`, `*.localhost`, 127.x, `[::1]`), the very address the connection reached (a client that
 * dialled an IP), and the names its caller lists (a test's or deployment's name for it); anything else,
 * a malformed `Host` or none, gets 403.
 */
export interface HostGuardOptions {
  /** Host names answered besides those above (case-insensitive, without port). */
  readonly allowedHosts?: readonly string[];
}

/** Puts the check in front of every `request` listener `server` has now (call it after creating the server). */
export function answerLoopbackHostsOnly(server: Server, options: HostGuardOptions = {}): void {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  const extra = new Set((options.allowedHosts ?? []).map((h) => h.toLowerCase()));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (hostAnswered(req.headers.host, req.socket.localAddress, extra)) {
      for (const listener of listeners) listener.call(server, req, res);
      return;
    }
    const body = JSON.stringify({
      error: `Host ${JSON.stringify(req.headers.host ?? '')} is not answered: this local stand-in answers only loopback names (localhost, 127.x, [::1]), the address it was reached at, and the names it was given (allowedHosts)`,
    });
    res.writeHead(403, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
    res.end(body);
  });
}

export function hostAnswered(host: string | undefined, localAddress: string | undefined, extra: ReadonlySet<string> = new Set()): boolean {
  const name = hostname(host);
  if (name === undefined) return false;
  if (name === 'localhost' || name.endsWith('.localhost') || name === '::1' || (isIP(name) === 4 && name.startsWith('127.'))) return true;
  if (localAddress !== undefined && name === localAddress.replace(/^::ffff:/, '').toLowerCase()) return true;
  return extra.has(name);
}

/** The host name of a Host header (lower case, no brackets), or undefined unless it is a plain `name[:port]`. */
function hostname(host: string | undefined): string | undefined {
  if (!host || !/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return undefined;
  }
}

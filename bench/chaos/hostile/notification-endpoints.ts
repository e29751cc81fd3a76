/**
 * ARM notification endpoints that misbehave, on loopback, for the hostile-documents scenario: each
 * path is one behaviour, and every POST is counted per operation, so what opstream did with a
 * hostile notificationUri is read from here, not from opstream.
 *
 * - `/hang/<op>`: accepts the request and never answers (held until the server closes);
 * - `/stream/<op>`: answers 200 and streams a body that never ends;
 * - `/redirect/<op>`: 307 to the real ARM receiver (which must never see that operation);
 * - `/status/<code>/<op>`: answers that status (404: final; 500: retried until the deadline);
 * - `/throttle/<op>`: 429 with Retry-After: 1 the first time, 200 after.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EndpointCall {
  readonly behaviour: string;
  readonly operation: string;
  readonly at: number;
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');

export class HostileNotificationEndpoints {
  readonly calls: EndpointCall[] = [];
  /** Bytes the stream behaviour managed to write before opstream closed the connection. */
  streamedBytes = 0;
  private readonly open = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly redirectTo: (operation: string) => string,
  ) {}

  static async start(redirectTo: (operation: string) => string): Promise<HostileNotificationEndpoints> {
    const server = createServer();
    const endpoints = new HostileNotificationEndpoints(server, redirectTo);
    server.on('request', (req, res) => endpoints.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return endpoints;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** POSTs per operation, for one behaviour or all. */
  postsFor(operation: string): number {
    return this.calls.filter((c) => c.operation === operation).length;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    const parts = (req.url ?? '/').split('/').filter(Boolean);
    const behaviour = parts[0] ?? '';
    const operation = parts[parts.length - 1] ?? '';
    this.calls.push({ behaviour: behaviour === 'status' ? `status-${parts[1]}` : behaviour, operation, at: Date.now() });
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    switch (behaviour) {
      case 'hang':
        return; // never answered
      case 'stream': {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const pump = (): void => {
          while (!res.destroyed && res.write(CHUNK)) this.streamedBytes += CHUNK.length;
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
        return;
      }
      case 'redirect':
        res.writeHead(307, { location: this.redirectTo(operation) }).end();
        return;
      case 'status':
        res.writeHead(Number(parts[1]) || 500).end('{"error":{"code":"Hostile","message":"as configured"}}');
        return;
      case 'throttle': {
        const first = this.calls.filter((c) => c.operation === operation).length === 1;
        if (first) res.writeHead(429, { 'retry-after': '1' }).end();
        else res.writeHead(200).end();
        return;
      }
      default:
        res.writeHead(404).end();
    }
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

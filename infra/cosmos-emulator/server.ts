import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import { AddressInfo } from 'node:net';
import { answerLoopbackHostsOnly } from '@opstream/stand-in-kit/host-guard';
import { handleAdmin, isAdminPath } from './admin';
import { RequestAuthorizer } from './authorizer';
import { EmulatorContext } from './context';
import { CosmosError, badRequest, errorBody, tooLarge } from './errors';
import { answerClientError, safeHeaders } from './wire';
import { METADATA_RU, errorUnits, roundCharge } from './request-charge';
import { Route, route } from './router';
import { EmulatorRequest, EmulatorResponse } from './types';

/** Requests larger than this are refused as a whole with 413, as the service does (its request limit is 2 MB). */
export const MAX_REQUEST_BYTES = 2 * 1024 * 1024;

/**
 * The HTTP front: reads the request, answers admin calls, checks the master-key signature or Entra ID token, applies
 * injected faults, runs the handler, and turns every failure into a Cosmos-shaped `{code, message}`
 * answer. Nothing a client sends can crash it; an unexpected exception becomes a 500.
 */
export class EmulatorServer {
  private readonly server: http.Server;

  constructor(
    private readonly ctx: EmulatorContext,
    private readonly auth: RequestAuthorizer,
    private readonly onInternalError: (err: unknown) => void = () => undefined,
    /** Serve HTTPS with this certificate (as the official Linux emulator does). */
    tls?: { cert: string; key: string },
    /** Host names answered besides loopback ones (the advertised host). */
    allowedHosts: readonly string[] = [],
  ) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      this.onRequest(req, res).catch((err: unknown) => this.lastResort(res, err));
    };
    this.server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, handler) : http.createServer(handler);
    answerLoopbackHostsOnly(this.server, { allowedHosts });
    // Malformed requests (bad request line, huge headers, broken chunking) never reach onRequest: answer
    // them here; a socket error after listening is reported, never thrown.
    this.server.on('clientError', (err: Error, socket) => answerClientError(err, socket));
    this.server.on('error', (err) => this.onInternalError(err));
    // Clients keep connections alive; a long server-side idle timeout avoids racing a reused socket.
    this.server.keepAliveTimeout = 120_000;
    this.server.headersTimeout = 125_000;
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    let response: EmulatorResponse;
    try {
      const body = await readBody(req);
      // Cosmos uses no query strings: a '?' belongs to the address (the SDK leaves '?' in item ids unescaped).
      const rawPath = req.url ?? '/';
      const request: EmulatorRequest = {
        method: (req.method ?? 'GET').toUpperCase(),
        rawPath,
        segments: [],
        headers: flattenHeaders(req.headers),
        body,
        receivedAt,
      };
      if (isAdminPath(rawPath)) {
        response = await handleAdmin(this.ctx, this.auth, request);
      } else {
        request.segments = decodeSegments(rawPath);
        const outcome = await this.handleCosmos(request, res);
        if (outcome === 'dropped') return;
        response = outcome;
      }
    } catch (err) {
      response = this.errorResponse(err);
    }
    // the gateway answers a query's correlated activity id (the SDK sends one per query iterator), errors included
    const correlated = req.headers['x-ms-cosmos-correlated-activityid'];
    if (typeof correlated === 'string') response.headers = { 'x-ms-cosmos-correlated-activityid': correlated, ...response.headers };
    this.send(res, response);
  }

  /** Writes an answer; if even that fails (a header the handler built is not valid HTTP), a plain 500. */
  private send(res: http.ServerResponse, response: EmulatorResponse): void {
    try {
      send(res, response);
    } catch (err) {
      this.lastResort(res, err);
    }
  }

  private lastResort(res: http.ServerResponse, err: unknown): void {
    this.onInternalError(err);
    try {
      if (!res.headersSent && !res.destroyed) {
        send(res, this.errorResponse(new CosmosError(500, 'InternalServerError', 'The emulator failed to write its answer.')));
        return;
      }
    } catch {
      // fall through: the connection cannot carry an answer any more
    }
    res.destroy();
  }

  private async handleCosmos(req: EmulatorRequest, res: http.ServerResponse): Promise<EmulatorResponse | 'dropped'> {
    let r: Route | undefined;
    try {
      r = route(this.ctx, req);
      try {
        await this.auth.authorize(req, r.kind);
      } catch (err) {
        this.ctx.counters.countFault('unauthorized');
        throw err;
      }
      const decision = this.ctx.faults.decide(req.method, req.rawPath, r.kind);
      if (decision.latencyMs > 0) {
        this.ctx.counters.countFault('delayed');
        await new Promise((resolve) => setTimeout(resolve, decision.latencyMs));
      }
      switch (decision.action) {
        case 'drop':
          this.ctx.counters.countFault('dropped');
          res.socket?.destroy();
          return 'dropped';
        case 'throttle':
          this.ctx.counters.countFault('throttled');
          throw new CosmosError(429, 'TooManyRequests', 'Request rate is large (injected by the emulator).', 3200, {
            'x-ms-retry-after-ms': String(decision.retryAfterMs),
          });
        case 'unavailable':
          this.ctx.counters.countFault('unavailable');
          throw new CosmosError(503, 'ServiceUnavailable', 'Service is currently unavailable (injected by the emulator).', 20003);
        case 'none':
          break;
      }
      const response = await r.handle();
      response.charge = roundCharge(response.charge ?? (response.status < 400 ? METADATA_RU : errorUnits(response.status)));
      this.ctx.counters.countRequest(r.kind, response.status, response.charge, containerOf(req.rawPath));
      return response;
    } catch (err) {
      const response = this.errorResponse(err);
      if (r && response.status !== 401 && response.status !== 429 && response.status !== 503)
        this.ctx.counters.countRequest(r.kind, response.status, response.charge ?? 0, containerOf(req.rawPath));
      else this.ctx.counters.countUnhandled();
      return response;
    }
  }

  private errorResponse(err: unknown): EmulatorResponse {
    if (!(err instanceof CosmosError)) {
      this.onInternalError(err);
      err = new CosmosError(
        500,
        'InternalServerError',
        `The emulator failed to handle the request: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const e = err as CosmosError;
    const headers: Record<string, string> = { ...e.extraHeaders };
    if (e.substatus !== undefined) headers['x-ms-substatus'] = String(e.substatus);
    return { status: e.status, headers, body: errorBody(e), charge: errorUnits(e.status) };
  }
}

function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function decodeSegments(rawPath: string): string[] {
  try {
    return rawPath
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    throw badRequest(`The request path ${rawPath} is not a valid URI.`);
  }
}

/** The whole body; past MAX_REQUEST_BYTES the rest is read and dropped, and the request refused (413). */
function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        overflow = true;
        chunks.length = 0;
      } else chunks.push(chunk);
    });
    req.on('end', () =>
      overflow
        ? reject(tooLarge(`The request size is too large: ${size} bytes, over the limit of ${MAX_REQUEST_BYTES}.`))
        : resolve(Buffer.concat(chunks)),
    );
    req.on('error', () => reject(badRequest('The request body was cut short.')));
    // a client that goes away mid-body: nothing to answer, but never leave the promise hanging
    req.on('close', () => {
      if (!req.complete) reject(badRequest('The request body was cut short.'));
    });
  });
}

function send(res: http.ServerResponse, r: EmulatorResponse): void {
  if (res.destroyed || res.headersSent) return;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-ms-request-charge': String(r.charge ?? 0),
    'x-ms-activity-id': randomUUID(),
    'x-ms-serviceversion': 'version=2.14.0.0',
    'x-ms-gatewayversion': 'version=2.14.0',
    ...safeHeaders(r.headers),
  };
  if (r.body !== undefined && r.status !== 204 && r.status !== 304) {
    const body = Buffer.from(r.body, 'utf8');
    headers['content-length'] = String(body.length);
    res.writeHead(r.status, headers);
    res.end(body);
  } else {
    headers['content-length'] = '0';
    res.writeHead(r.status, headers);
    res.end();
  }
}

/** The container a request addresses (`/dbs/{db}/colls/{coll}/…`), for the per-container counters. */
function containerOf(rawPath: string): string | undefined {
  const m = /^\/?dbs\/[^/]+\/colls\/([^/]+)/i.exec(rawPath);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo } from 'net';
import { timingSafeEqual } from 'crypto';
import { TapRegistry } from './taps';
import { OpstreamMetrics } from './metrics';
import { serveSse } from './sse-client';
import { tapPredicate } from './tap-filter';
import { hostAllowed } from './host-check';
import { validate } from '../schemas/validator';
import type { OperationState } from '../pipeline/operation-state';
import type { Logger } from '../logging/logger';

/**
 * The ops server: `/healthz` (the process lives), `/readyz` (dependencies and progress),
 * `/metrics` (Prometheus), `/streams/<name>` (SSE taps with `status`, `subscription`, `resource`
 * filters), `/api/summary` (the live page's data), `/api/operations/<id>` (what this instance does
 * with one operation, for `opstream explain`) and `/` (the live page). An optional bearer
 * token, in the Authorization header only, protects everything but `/healthz` and the page itself
 * (which holds no data and asks for the token); a second listener with `only: 'probes'` serves the
 * first three without it. A listener without a token answers only its own Host names (DNS
 * rebinding), and at most `maxStreamClients` streams are open at once.
 */
export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail?: string }>;
}

export interface OpsServerOptions {
  host: string;
  port: number;
  taps: TapRegistry;
  metrics: OpstreamMetrics;
  readiness: () => Promise<ReadinessReport>;
  summary?: () => Promise<unknown>;
  /** What the instance is doing with one operation (`/api/operations/<id>`, read-only; validated before it is sent). */
  operation?: (operationId: string) => OperationState;
  /** Brings the operation's next look forward (`POST /api/operations/<id>/nudge`); false when it is not parked here. */
  nudge?: (operationId: string) => boolean;
  /** Refreshes metrics that are read on demand (lease lag) before a scrape; its failure never fails the scrape. */
  beforeMetrics?: () => Promise<void>;
  page?: () => string;
  token?: string;
  /**
   * `probes`: answer only /healthz, /readyz and /metrics, never asking for `token` (kubelet probes
   * and Prometheus send none); taps, the summary and the live page stay on the full server.
   */
  only?: 'probes';
  sse?: { maxBufferedBytes?: number; maxDropped?: number; heartbeatMs?: number };
  /** Open `/streams/*` clients at most; more are answered 503 (`ops.maxStreamClients`). @defaultValue 64 */
  maxStreamClients?: number;
  /** Where a request that failed inside the server is described (its answer is a bare 500). */
  logger?: Logger;
}

/** What the server counts across requests. */
interface ServerState {
  streams: number;
}

export interface OpsServer {
  url: string;
  close(): Promise<void>;
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const state: ServerState = { streams: 0 };
  const server: Server = createServer((req, res) => {
    handle(options, state, req, res).catch((err: unknown) => {
      // The details stay in the log: an error's message may name internals (a schema path, a file, an address).
      options.logger?.error('ops server request failed', { path: pathOf(req), error: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) json(res, 500, { error: 'internal error (the instance logged it)' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(o: OpsServerOptions, state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Without a token nothing but the Host tells a rebound browser page from a local client.
  if ((o.only === 'probes' || !o.token) && !hostAllowed(req.headers.host, o.host)) {
    o.metrics.opsRefused.inc({ reason: 'host' });
    return json(res, 421, { error: foreignHost(req.headers.host, o) });
  }
  const url = new URL(req.url ?? '/', 'http://ops');
  if (decodedPath(url.pathname) === undefined) return json(res, 400, { error: 'malformed percent-encoding in the URL path' });
  if (url.searchParams.has('token')) {
    return json(res, 400, {
      error:
        'the token goes in the header "Authorization: Bearer <token>", never in the URL as ?token= (URLs end up in histories and logs); the live page at / asks for it',
    });
  }
  if (url.pathname === '/healthz') return json(res, 200, { status: 'ok' });
  if (url.pathname === '/' && o.page && o.only !== 'probes' && req.method === 'GET') {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The page takes a token: no other site may frame it to make someone type it there.
      'content-security-policy': "frame-ancestors 'none'",
      'x-frame-options': 'DENY',
    });
    res.end(o.page());
    return;
  }
  if (o.only !== 'probes' && o.token && !authorized(req, o.token)) {
    res.setHeader('www-authenticate', 'Bearer');
    return json(res, 401, { error: 'missing or wrong bearer token (header "Authorization: Bearer <token>")' });
  }
  const nudged = /^\/api\/operations\/([^/]+)\/nudge$/.exec(url.pathname)?.[1];
  if (nudged !== undefined && o.nudge && o.operation && o.only !== 'probes') return nudge(o, req, res, decodeURIComponent(nudged));
  if (req.method !== 'GET') return json(res, 405, { error: 'only GET' });
  if (url.pathname === '/readyz') {
    const report = await o.readiness();
    return json(res, report.ready ? 200 : 503, report);
  }
  if (url.pathname === '/metrics') {
    if (o.beforeMetrics) await refreshBounded(o.beforeMetrics);
    res.writeHead(200, { 'content-type': o.metrics.registry.contentType });
    res.end(await o.metrics.registry.metrics());
    return;
  }
  if (o.only === 'probes') return json(res, 404, { error: 'not found', paths: ['/healthz', '/readyz', '/metrics'] });
  if (url.pathname === '/api/summary' && o.summary) return json(res, 200, await o.summary());
  const operationId = /^\/api\/operations\/([^/]+)$/.exec(url.pathname)?.[1];
  if (operationId !== undefined && o.operation)
    return json(res, 200, validate('operationState', o.operation(decodeURIComponent(operationId))));
  if (url.pathname === '/streams' || url.pathname === '/streams/') return json(res, 200, { streams: o.taps.names });
  const stream = /^\/streams\/([\w*.-]+)$/.exec(url.pathname)?.[1];
  if (stream) {
    if (stream !== '*' && !o.taps.names.includes(stream))
      return json(res, 404, { error: `unknown stream "${stream}"`, streams: o.taps.names });
    const max = o.maxStreamClients ?? OPS_SERVER_DEFAULTS.maxStreamClients;
    if (state.streams >= max) {
      o.metrics.opsRefused.inc({ reason: 'stream-limit' });
      res.setHeader('retry-after', '5');
      res.setHeader('connection', 'close'); // nor does the refused client keep an idle connection
      return json(res, 503, {
        error: `${state.streams} stream clients are open, as many as ops.maxStreamClients (OPSTREAM_OPS_MAX_STREAM_CLIENTS) allows: retry when one has left, or raise the setting`,
      });
    }
    state.streams++;
    o.metrics.tapClients.inc();
    res.once('close', () => {
      state.streams--;
      o.metrics.tapClients.dec();
    });
    const predicate = tapPredicate({
      status: url.searchParams.get('status') ?? undefined,
      subscription: url.searchParams.get('subscription') ?? undefined,
      resource: url.searchParams.get('resource') ?? undefined,
    });
    serveSse(res, o.taps.tap(stream, predicate), (e) => e.stream, {
      ...o.sse,
      onDrop: () => o.metrics.tapDrops.inc({ stream }),
      logger: o.logger,
      stream,
    });
    return;
  }
  json(res, 404, {
    error: 'not found',
    paths: ['/healthz', '/readyz', '/metrics', '/streams/<name>', '/api/summary', '/api/operations/<id>', '/'],
  });
}

/** Defaults of the settings the ops server takes (`ops.*`; the configuration schema says the same). */
export const OPS_SERVER_DEFAULTS = Object.freeze({ maxStreamClients: 64 });

function foreignHost(host: string | undefined, o: OpsServerOptions): string {
  const which = o.only === 'probes' ? 'ops.metricsAddr (OPSTREAM_OPS_METRICS_ADDR)' : 'ops.addr (OPSTREAM_OPS_ADDR)';
  const fix = o.only === 'probes' ? '' : ', or set ops.token (OPSTREAM_OPS_TOKEN) to be reached by any name';
  return (
    `Host "${host ?? ''}" is not a name of this ops server: without a token it answers only loopback names ` +
    `(localhost, 127.0.0.1, [::1]) and the address of ${which}, so that a web page cannot reach it by DNS rebinding. ` +
    `Use one of those${fix}`
  );
}

/** A scrape waits at most this long for `beforeMetrics` (Cosmos may be slow or down), then answers with what it has. */
const BEFORE_METRICS_TIMEOUT_MS = 2000;

async function refreshBounded(refresh: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, BEFORE_METRICS_TIMEOUT_MS);
    timer.unref();
  });
  await Promise.race([refresh().catch(() => undefined), timeout]);
  clearTimeout(timer);
}

/** The Authorization header only: a token in a URL would end up in histories and logs. The scheme is case-insensitive (RFC 9110 §11.1). */
function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const given = Buffer.from(/^bearer +(.*)$/i.exec(header)?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The path with its percent-escapes decoded, or undefined when one is malformed (`%E0%A4%A`). */
function decodedPath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

/** The request's path for a log line, without its query. */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0];
}

/**
 * `POST /api/operations/<id>/nudge`, the one request that changes anything (and only brings a look
 * forward). It must say `content-type: application/json`: a page in a browser cannot send that
 * cross-origin without a preflight this server never grants, so no web page can nudge a loopback instance.
 */
function nudge(o: OpsServerOptions, req: IncomingMessage, res: ServerResponse, operationId: string): void {
  if (req.method !== 'POST') return json(res, 405, { error: 'only POST' });
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    return json(res, 415, { error: 'send "content-type: application/json" (opstream operations nudge does)' });
  req.resume();
  const done = (o.nudge as (id: string) => boolean)(operationId);
  const state = validate('operationState', (o.operation as (id: string) => OperationState)(operationId));
  o.logger?.info('operation nudged by an operator', { operationId, nudged: done });
  return json(res, 200, { nudged: done, state });
}

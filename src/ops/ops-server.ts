import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo } from 'net';
import { timingSafeEqual } from 'crypto';
import { TapRegistry } from './taps';
import { OpstreamMetrics } from './metrics';
import { serveSse } from './sse-client';
import { tapPredicate } from './tap-filter';

/**
 * The ops server: `/healthz` (the process lives), `/readyz` (dependencies and progress),
 * `/metrics` (Prometheus), `/streams/<name>` (SSE taps with `status`, `subscription`, `resource`
 * filters), `/api/summary` (the live page's data) and `/` (the live page). An optional bearer
 * token protects everything but `/healthz`; a second listener with `only: 'probes'` serves the
 * first three without it.
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
}

export interface OpsServer {
  url: string;
  close(): Promise<void>;
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const server: Server = createServer((req, res) => {
    handle(options, req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: (err as Error).message });
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

async function handle(o: OpsServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://ops');
  if (url.pathname === '/healthz') return json(res, 200, { status: 'ok' });
  if (o.only !== 'probes' && o.token && !authorized(req, url, o.token)) {
    res.setHeader('www-authenticate', 'Bearer');
    return json(res, 401, { error: 'missing or wrong bearer token' });
  }
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
  if (url.pathname === '/streams' || url.pathname === '/streams/') return json(res, 200, { streams: o.taps.names });
  const stream = /^\/streams\/([\w*.-]+)$/.exec(url.pathname)?.[1];
  if (stream) {
    if (stream !== '*' && !o.taps.names.includes(stream)) return json(res, 404, { error: `unknown stream "${stream}"`, streams: o.taps.names });
    const predicate = tapPredicate({
      status: url.searchParams.get('status') ?? undefined,
      subscription: url.searchParams.get('subscription') ?? undefined,
      resource: url.searchParams.get('resource') ?? undefined,
    });
    serveSse(res, o.taps.tap(stream, predicate), (e) => e.stream, { ...o.sse, onDrop: () => o.metrics.tapDrops.inc({ stream }) });
    return;
  }
  if (url.pathname === '/' && o.page) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(o.page());
    return;
  }
  json(res, 404, { error: 'not found', paths: ['/healthz', '/readyz', '/metrics', '/streams/<name>', '/api/summary', '/'] });
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

/** Bearer header, or `?token=` for EventSource clients that cannot set headers. */
function authorized(req: IncomingMessage, url: URL, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const given = header.startsWith('Bearer ') ? header.slice(7) : (url.searchParams.get('token') ?? '');
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

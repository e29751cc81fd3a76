/**
 * The Clusters Service simulator: a real HTTP server on the loopback interface serving the
 * /api/aro_hcp/v1alpha1 calls opstream makes (and break-glass credentials under /api/clusters_mgmt/v1), with OCM-shaped bodies and errors, per-call counters,
 * fault injection and test controls under /_admin (see admin.ts), which answer only the admin token.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdmin, handleAdmin, type SimulatorAdmin } from './admin';
import { matchRoute, splitApiPath, type SimulatorState } from './api';
import { BreakGlassCredentials } from './break-glass';
import { CallCounters } from './counters';
import { FaultInjector, InvalidFaultError, seededRandom } from './faults';
import { ExternalAuths } from './external-auths';
import { DEFAULT_DURATIONS, type SimulatorDurations } from './lifecycle';
import { OcmError, ocmErrorBody } from './ocm-errors';
import { EventPublisher } from './event-publisher';
import { StateEvents } from './state-events';
import { SimulatorStore, type DurationsFor } from './store';
import { answerLoopbackHostsOnly } from '@opstream/stand-in-kit/host-guard';
import { isLoopbackHost } from '@opstream/stand-in-kit/loopback';
import { hasBearer } from '@opstream/stand-in-kit/secrets';

export interface ClustersServiceSimulatorOptions {
  /** 0 = any free port. @defaultValue 0 */
  port?: number;
  /** Loopback (127.0.0.0/8, localhost, ::1) unless `allowRemote`. @defaultValue "127.0.0.1" */
  host?: string;
  /** Let `host` be any address: the API and `/_admin` are then reachable from the network. @defaultValue false */
  allowRemote?: boolean;
  /** Host names answered besides loopback ones and the address reached (DNS rebinding: others get 403). */
  allowedHosts?: readonly string[];
  /** Phase durations (merged over DEFAULT_DURATIONS). */
  durations?: Partial<SimulatorDurations>;
  /** When set, API calls must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** `/_admin` calls must carry `Authorization: Bearer <adminToken>` (faults and resets are no one else's business). @defaultValue random, read it from `adminToken` of the simulator */
  adminToken?: string;
  /** Seed of the generator that decides rate-limited faults. @defaultValue 1 */
  seed?: number;
  /** Time source in ms; tests may step it. @defaultValue Date.now */
  now?: () => number;
  /** Largest accepted request body. @defaultValue 1 MiB */
  maxBodyBytes?: number;
  /**
   * Durations per object and action (create, update, delete), merged over `durations`: lets a
   * benchmark draw them from a seeded distribution keyed by name, the same for every run.
   */
  durationsFor?: DurationsFor;
  /** Called once per API call after it was answered (or dropped): who called what, when. */
  onCall?: (call: ApiCallRecord) => void;
  /**
   * Publish every cluster, node-pool, break-glass credential and external auth state change on this Service Bus topic (schemas/cs-event.schema.json),
   * as a Clusters Service with publish-subscribe would. Needs a real clock (`now` left alone): states change on timers.
   */
  serviceBus?: { connectionString: string; /** @defaultValue "clusters-service-events" */ topic?: string };
}

/** One API call as `onCall` sees it. */
export interface ApiCallRecord {
  /** `METHOD /template`, as counted. */
  readonly endpoint: string;
  /** Path without the API prefix, e.g. `/clusters/abc/status`. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Parsed JSON body of a POST/PATCH. */
  readonly body: unknown;
  readonly status: number | 'dropped';
  /** Date.now() when the request was received in full (just before it took effect). */
  readonly receivedAt: number;
  /** The request's tracing and correlation headers, when sent (`traceparent`, `tracestate`, `x-ms-correlation-request-id`, `x-ms-client-request-id`). */
  readonly headers: Readonly<Record<string, string>>;
}

const RECORDED_HEADERS = ['traceparent', 'tracestate', 'x-ms-correlation-request-id', 'x-ms-client-request-id'];

function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of RECORDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

export interface ClustersServiceSimulator {
  /** Base URL, e.g. http://127.0.0.1:40123 (the API is under `${url}/api/aro_hcp/v1alpha1`). */
  readonly url: string;
  readonly port: number;
  /** What `/_admin` calls must send as `Authorization: Bearer <adminToken>`. */
  readonly adminToken: string;
  /** The same controls in process (no token). */
  readonly admin: SimulatorAdmin;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const ADMIN_PREFIX = '/_admin';

class BodyError extends OcmError {}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyError(413, `request body larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyError(400, 'request body is not valid JSON');
  }
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

let operationSeq = 0;

/** Throws unless the simulator may listen on `host`: loopback, or anything with `allowRemote`. */
export function checkBindHost(host: string, allowRemote: boolean): void {
  if (allowRemote || isLoopbackHost(host)) return;
  throw new Error(
    `the Clusters Service simulator listens on loopback only (127.0.0.1, localhost, ::1); got host ${host || '(all interfaces)'}: pass allowRemote (--allow-remote of opstream emulator clusters-service) to listen there`,
  );
}

export async function startClustersServiceSimulator(options: ClustersServiceSimulatorOptions = {}): Promise<ClustersServiceSimulator> {
  const bindHost = options.host ?? '127.0.0.1';
  checkBindHost(bindHost, options.allowRemote ?? false);
  const adminToken = options.adminToken ?? randomBytes(16).toString('hex');
  const now = options.now ?? Date.now;
  const initialDurations: SimulatorDurations = { ...DEFAULT_DURATIONS, ...(options.durations ?? {}) };
  const durations: SimulatorDurations = { ...initialDurations };
  const store = new SimulatorStore(now, () => durations, options.durationsFor);
  const credentials = new BreakGlassCredentials(store, now, () => durations);
  const externalAuths = new ExternalAuths(store, now, () => durations);
  const state: SimulatorState = { store, credentials, externalAuths, now };
  const publisher = options.serviceBus ? new EventPublisher(options.serviceBus) : undefined;
  const childrenOf = (clusterId: string) => {
    const cluster = store.peekCluster(clusterId);
    if (!cluster) return [];
    return [
      ...[...cluster.credentials.keys()].map((id) => credentials.watched(clusterId, id)),
      ...[...cluster.externalAuths.keys()].map((id) => externalAuths.watched(clusterId, id)),
    ];
  };
  const stateEvents = publisher ? new StateEvents(store, now, (e) => publisher.publish(e), childrenOf) : undefined;
  if (stateEvents) {
    store.onTouched = (clusterId, nodePoolId) => stateEvents.touched(clusterId, nodePoolId);
    credentials.onTouched = externalAuths.onTouched = (object) => stateEvents.follow(object);
  }
  const faults = new FaultInjector(seededRandom(options.seed ?? 1));
  const counters = new CallCounters();
  const admin = createAdmin({ ...state, faults, counters, durations, initialDurations, events: () => publisher?.counts() });
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  let closing = false;

  const serveAdmin = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (!hasBearer(req.headers.authorization, adminToken)) {
      return send(
        res,
        401,
        ocmErrorBody(
          401,
          'admin calls need "Authorization: Bearer <admin token>" (adminToken of the simulator; opstream emulator clusters-service prints it)',
          'sim-0',
        ),
      );
    }
    const body = req.method === 'POST' || req.method === 'PUT' ? await readJson(req, maxBody) : undefined;
    const answer = handleAdmin(admin, req.method ?? 'GET', path, body);
    if (!answer) return send(res, 404, { reason: `no admin call ${req.method} ${ADMIN_PREFIX}${path}` });
    send(res, answer.status, answer.body);
  };

  const serveApi = async (
    req: IncomingMessage,
    res: ServerResponse,
    api: { prefix: string; rest: string },
    query: URLSearchParams,
  ): Promise<void> => {
    const method = req.method ?? 'GET';
    const path = api.rest;
    const match = matchRoute(method, api.prefix, path);
    const operationId = `sim-${++operationSeq}`;
    let requestBody: unknown = undefined;
    let receivedAt = Date.now();
    const answer = (status: number, body?: unknown): void => {
      counters.record(match.endpoint, status);
      options.onCall?.({ endpoint: match.endpoint, path, query, body: requestBody, status, receivedAt, headers: recordedHeaders(req) });
      send(res, status, body);
    };
    const fail = (status: number, reason: string): void => answer(status, ocmErrorBody(status, reason, operationId));

    if (options.token !== undefined && !hasBearer(req.headers.authorization, options.token)) {
      return fail(401, 'missing or invalid bearer token');
    }
    if (!match.route) {
      return match.methodNotAllowed
        ? fail(405, `method ${method} not allowed on ${path}`)
        : fail(404, `no such resource ${api.prefix}${path}`);
    }
    // The request is received in full first; latency then delays its processing, so a caller that
    // times out meanwhile does not know whether the call took effect (as with a slow real service).
    const body = match.route.hasBody ? await readJson(req, maxBody) : undefined;
    requestBody = body;
    const plan = faults.plan(match.endpoint);
    if (plan.latencyMs > 0) await new Promise((r) => setTimeout(r, plan.latencyMs));
    if (closing) return;
    receivedAt = Date.now();
    if (plan.outcome?.kind === 'error') return fail(plan.outcome.status, `injected fault: ${plan.outcome.status}`);
    const result = match.route.handle(state, { params: match.params, query, body });
    if (plan.outcome?.kind === 'drop-response') {
      counters.record(match.endpoint, 'dropped');
      options.onCall?.({
        endpoint: match.endpoint,
        path,
        query,
        body: requestBody,
        status: 'dropped',
        receivedAt,
        headers: recordedHeaders(req),
      });
      req.socket.destroy();
      return;
    }
    answer(result.status, result.body);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const path = url.pathname;
    const api = splitApiPath(path);
    const handle = path.startsWith(`${ADMIN_PREFIX}/`)
      ? serveAdmin(req, res, path.slice(ADMIN_PREFIX.length))
      : api
        ? serveApi(req, res, api, url.searchParams)
        : Promise.resolve(send(res, 404, ocmErrorBody(404, `no such resource ${path}`, 'sim-0')));
    handle.catch((err: unknown) => {
      if (res.headersSent || res.destroyed) return;
      if (err instanceof OcmError || err instanceof InvalidFaultError) {
        const status = err instanceof OcmError ? err.status : 400;
        const endpoint = api ? matchRoute(req.method ?? 'GET', api.prefix, api.rest).endpoint : undefined;
        if (api && endpoint) {
          counters.record(endpoint, status);
          options.onCall?.({
            endpoint,
            path: api.rest,
            query: url.searchParams,
            body: undefined,
            status,
            receivedAt: Date.now(),
            headers: recordedHeaders(req),
          });
        }
        return send(res, status, ocmErrorBody(status, err.message, `sim-${++operationSeq}`));
      }
      send(res, 500, ocmErrorBody(500, `simulator error: ${err instanceof Error ? err.message : String(err)}`, 'sim-0'));
    });
  });
  server.keepAliveTimeout = 5_000;
  answerLoopbackHostsOnly(server, { allowedHosts: options.allowedHosts });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    adminToken,
    admin,
    close: async () => {
      closing = true;
      stateEvents?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await publisher?.close();
    },
  };
}

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TokenFault, TokenIssuer } from './issuer';
import type { PrincipalRegistry } from './principals';
import { answerLoopbackHostsOnly } from '@opstream/stand-in-kit/host-guard';
import { sameSecret } from '@opstream/stand-in-kit/secrets';

/**
 * The HTTP face of the token service:
 *   GET  /msi/token?api-version=2019-08-01&resource=…[&client_id=|principal_id=|object_id=|mi_res_id=]
 *        header X-IDENTITY-HEADER: the App Service managed identity protocol (IDENTITY_ENDPOINT/IDENTITY_HEADER)
 *   GET  /<tenant>/.well-known/openid-configuration, /<tenant>/discovery/keys: what verifiers read
 *   /_admin/… with `Authorization: Bearer <admin token>`: principals, token faults, counters
 */
export interface ServerDeps {
  issuer: TokenIssuer;
  principals: PrincipalRegistry;
  identityHeader: string;
  adminToken: string;
  /** `http://127.0.0.1:PORT`, known once listening. */
  baseUrl: () => string;
  /** Host names answered besides loopback ones (DNS rebinding: others get 403). */
  allowedHosts?: readonly string[];
}

export const TOKEN_PATH = '/msi/token';
export const APP_SERVICE_API_VERSION = '2019-08-01';

interface Answer {
  status: number;
  body: unknown;
}

export function createIdentityServer(deps: ServerDeps): http.Server {
  const counters = { refused: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let answer: Answer;
      try {
        answer = route(deps, counters, req, Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        answer = { status: 500, body: { error: 'internal_error', message: err instanceof Error ? err.message : String(err) } };
      }
      const body = JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  answerLoopbackHostsOnly(server, { allowedHosts: deps.allowedHosts });
  return server;
}

export function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function route(deps: ServerDeps, counters: { refused: number }, req: http.IncomingMessage, body: string): Answer {
  const url = new URL(req.url ?? '/', deps.baseUrl());
  const method = (req.method ?? 'GET').toUpperCase();
  const tenant = deps.issuer.tenantId;
  if (url.pathname.startsWith('/_admin/')) return admin(deps, counters, req, method, url.pathname.slice('/_admin/'.length), body);
  if (method !== 'GET')
    return { status: 405, body: { error: 'method_not_allowed', message: `${method} is not supported on ${url.pathname}` } };
  if (url.pathname === TOKEN_PATH) {
    const answer = token(deps, req, url);
    if (answer.status !== 200) counters.refused++;
    return answer;
  }
  if (url.pathname === `/${tenant}/.well-known/openid-configuration`) {
    return {
      status: 200,
      body: {
        issuer: deps.issuer.issuer,
        jwks_uri: `${deps.baseUrl()}/${tenant}/discovery/keys`,
        token_endpoint: `${deps.baseUrl()}${TOKEN_PATH}`,
        id_token_signing_alg_values_supported: ['RS256'],
        response_types_supported: ['token'],
        subject_types_supported: ['pairwise'],
        tenant_region_scope: 'local',
      },
    };
  }
  if (url.pathname === `/${tenant}/discovery/keys`) return { status: 200, body: { keys: [deps.issuer.key.publicJwk] } };
  return { status: 404, body: { error: 'not_found', message: `no such path ${url.pathname}` } };
}

function token(deps: ServerDeps, req: http.IncomingMessage, url: URL): Answer {
  const header = String(req.headers['x-identity-header'] ?? '');
  if (!sameSecret(header, deps.identityHeader)) {
    return {
      status: 401,
      body: { statusCode: 401, message: 'The X-IDENTITY-HEADER header is missing or does not match IDENTITY_HEADER.' },
    };
  }
  const apiVersion = url.searchParams.get('api-version');
  if (apiVersion !== APP_SERVICE_API_VERSION) {
    return {
      status: 400,
      body: { statusCode: 400, message: `api-version ${apiVersion ?? '(none)'} is not supported; use ${APP_SERVICE_API_VERSION}.` },
    };
  }
  const resource = url.searchParams.get('resource');
  if (!resource) return { status: 400, body: { statusCode: 400, message: 'The resource query parameter is required.' } };
  const selector = {
    clientId: url.searchParams.get('client_id') ?? undefined,
    objectId: url.searchParams.get('principal_id') ?? url.searchParams.get('object_id') ?? undefined,
    resourceId: url.searchParams.get('mi_res_id') ?? undefined,
  };
  const principal = deps.principals.find(selector);
  if (!principal) {
    const named = selector.clientId ?? selector.objectId ?? selector.resourceId;
    return {
      status: 400,
      body: {
        statusCode: 400,
        message: named
          ? `No managed identity found for the specified id ${named}.`
          : 'No system-assigned managed identity is enabled on this host.',
      },
    };
  }
  const issued = deps.issuer.issue(principal, resource);
  return {
    status: 200,
    body: {
      access_token: issued.accessToken,
      expires_on: String(issued.expiresOn),
      resource: issued.audience,
      token_type: 'Bearer',
      client_id: principal.clientId,
    },
  };
}

function admin(
  deps: ServerDeps,
  counters: { refused: number },
  req: http.IncomingMessage,
  method: string,
  path: string,
  body: string,
): Answer {
  const m = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? '').trim());
  if (!m || !sameSecret(m[1], deps.adminToken))
    return { status: 401, body: { message: 'Admin calls need "Authorization: Bearer <admin token>" (printed at start).' } };
  const [what, id] = path.split('/').map((p) => decodeURIComponent(p));
  let parsed: unknown;
  try {
    parsed = body.trim() === '' ? {} : JSON.parse(body);
  } catch {
    return { status: 400, body: { message: 'The body is not JSON.' } };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { status: 400, body: { message: 'The body must be a JSON object.' } };
  const input = parsed as Record<string, unknown>;
  if (what === 'principals') {
    if (method === 'GET' && !id) return { status: 200, body: deps.principals.list() };
    if (method === 'PUT' && id)
      return {
        status: 200,
        body: deps.principals.add({ ...stringFields(input), clientId: id, systemAssigned: input.systemAssigned === true }),
      };
    if (method === 'DELETE' && id)
      return deps.principals.remove(id)
        ? { status: 204, body: {} }
        : { status: 404, body: { message: `no principal with client id ${id}` } };
  }
  if (what === 'next-token' && method === 'POST') {
    const fault: TokenFault = {
      expired: input.expired === true,
      audience: typeof input.audience === 'string' ? input.audience : undefined,
      issuer: typeof input.issuer === 'string' ? input.issuer : undefined,
      unpublishedKey: input.unpublishedKey === true,
      count: typeof input.count === 'number' ? input.count : undefined,
    };
    deps.issuer.injectFault(fault);
    return { status: 200, body: fault };
  }
  if (what === 'counters' && method === 'GET') return { status: 200, body: { issued: deps.issuer.issued, refused: counters.refused } };
  return { status: 404, body: { message: `unknown admin call ${method} /_admin/${path}` } };
}

function stringFields(input: Record<string, unknown>): { objectId?: string; resourceId?: string } {
  return {
    objectId: typeof input.objectId === 'string' ? input.objectId : undefined,
    resourceId: typeof input.resourceId === 'string' ? input.resourceId : undefined,
  };
}

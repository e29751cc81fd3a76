import { randomBytes, randomUUID } from 'node:crypto';
import type { TokenFault } from './issuer';
import { TokenIssuer } from './issuer';
import { createSigningKey } from './keys';
import { type Principal, type PrincipalInput, PrincipalRegistry } from './principals';
import { createIdentityServer, listen, TOKEN_PATH } from './server';

/**
 * A local Entra ID token service for tests and development (see README.md): a managed identity
 * endpoint that `@azure/identity` reaches with `IDENTITY_ENDPOINT` + `IDENTITY_HEADER` alone, RS256
 * tokens signed with its own key, and the OpenID configuration and keys a verifier needs.
 */
export interface TokenServiceOptions {
  /** 0 picks a free port. @defaultValue 0 */
  port?: number;
  /** Loopback only. @defaultValue 127.0.0.1 */
  host?: '127.0.0.1' | 'localhost';
  /** @defaultValue a random uuid */
  tenantId?: string;
  /** Identities it issues tokens for. @defaultValue one system-assigned identity with random ids */
  principals?: PrincipalInput[];
  /** @defaultValue 3600 */
  tokenLifetimeSeconds?: number;
  /** `X-IDENTITY-HEADER` value clients must send. @defaultValue random */
  identityHeader?: string;
  /** Bearer token of the admin calls. @defaultValue random */
  adminToken?: string;
  /** Host names answered besides loopback ones and the address reached (DNS rebinding: others get 403). */
  allowedHosts?: readonly string[];
}

export interface TokenService {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly tenantId: string;
  /** `iss` of every token: `http://127.0.0.1:PORT/<tenant>/` */
  readonly issuer: string;
  readonly openIdConfigurationUrl: string;
  readonly jwksUrl: string;
  readonly identityEndpoint: string;
  readonly identityHeader: string;
  readonly adminToken: string;
  /** The variables a process needs for `ManagedIdentityCredential`/`DefaultAzureCredential` to use this service. */
  env(clientId?: string): Record<string, string>;
  principals(): Principal[];
  addPrincipal(input?: PrincipalInput): Principal;
  removePrincipal(clientId: string): boolean;
  /** The next token(s) carry this fault (same as `POST /_admin/next-token`). */
  injectFault(fault: TokenFault): void;
  counters(): { issued: number };
  close(): Promise<void>;
}

export async function startTokenService(options: TokenServiceOptions = {}): Promise<TokenService> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== 'localhost')
    throw new Error(`The token service listens on loopback only; got host ${String(host)}.`);
  const tenantId = options.tenantId ?? randomUUID();
  const principals = new PrincipalRegistry(options.principals ?? [{ systemAssigned: true }]);
  const identityHeader = options.identityHeader ?? randomBytes(16).toString('hex');
  const adminToken = options.adminToken ?? randomBytes(16).toString('hex');
  let url = '';
  // The issuer names the address, known only once listening; no request arrives before then.
  const state: { issuer?: TokenIssuer } = {};
  const key = createSigningKey();
  const server = createIdentityServer({
    get issuer() {
      if (!state.issuer) throw new Error('token service not listening yet');
      return state.issuer;
    },
    principals,
    identityHeader,
    adminToken,
    baseUrl: () => url,
    allowedHosts: options.allowedHosts,
  });
  const port = await listen(server, host, options.port ?? 0);
  url = `http://${host}:${port}`;
  const live = new TokenIssuer(key, `${url}/${tenantId}/`, tenantId, options.tokenLifetimeSeconds ?? 3600);
  state.issuer = live;
  let closing: Promise<void> | undefined;
  return {
    url,
    tenantId,
    issuer: live.issuer,
    openIdConfigurationUrl: `${url}/${tenantId}/.well-known/openid-configuration`,
    jwksUrl: `${url}/${tenantId}/discovery/keys`,
    identityEndpoint: `${url}${TOKEN_PATH}`,
    identityHeader,
    adminToken,
    env: (clientId) => ({
      IDENTITY_ENDPOINT: `${url}${TOKEN_PATH}`,
      IDENTITY_HEADER: identityHeader,
      ...(clientId ? { AZURE_CLIENT_ID: clientId } : {}),
    }),
    principals: () => principals.list(),
    addPrincipal: (input) => principals.add(input ?? {}),
    removePrincipal: (clientId) => principals.remove(clientId),
    injectFault: (fault) => live.injectFault(fault),
    counters: () => ({ issued: live.issued }),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

export type { TokenFault } from './issuer';
export type { Principal, PrincipalInput } from './principals';

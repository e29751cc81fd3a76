import { createPublicKey, verify as verifySignature, type JsonWebKey, type KeyObject } from 'node:crypto';
import { CosmosError, unauthorized } from './errors';

export interface EntraIdOptions {
  /** `<issuer>/.well-known/openid-configuration` of the token service (local: `infra/identity`). */
  openIdConfigurationUrl: string;
  /** Accepted `aud` besides `https://cosmos.azure.com` and the account's own endpoints. */
  audiences?: string[];
  /**
   * Data-plane role assignments: principal object id → role definition ids or names
   * (`Cosmos DB Built-in Data Reader`/`…0001`, `Cosmos DB Built-in Data Contributor`/`…0002`).
   * @defaultValue every principal of the issuer is a Data Contributor
   */
  roleAssignments?: Record<string, string[]>;
  /** Tolerated clock difference. @defaultValue 300 */
  clockSkewSeconds?: number;
}

export interface EntraPrincipal {
  objectId: string;
  tenantId?: string;
}

const COSMOS_AUDIENCES = ['https://cosmos.azure.com', 'https://cosmos.azure.com/'];
/** Unknown `kid`s re-read the keys at most this often (a flood of forged tokens must not hammer the issuer). */
const KEY_REFRESH_MIN_MS = 5_000;

/**
 * Entra ID (AAD) tokens as Cosmos DB checks them: `Authorization: type=aad&ver=1.0&sig=<JWT>`. The
 * JWT must be RS256-signed by a key the issuer publishes (read from its OpenID configuration, re-read
 * when a token names an unknown `kid`), come from that issuer, be meant for Cosmos DB (`aud`), and be
 * within its lifetime. What the principal (`oid`) may do is `roles.ts`'s business.
 */
export class EntraIdVerifier {
  private keys = new Map<string, KeyObject>();
  private issuer?: string;
  private lastFetchMs = 0;

  constructor(
    private readonly options: EntraIdOptions,
    /** The account endpoints a token may name as audience (`http://127.0.0.1:PORT`, the advertised write host). */
    private readonly accountEndpoints: () => string[],
  ) {}

  async verify(jwt: string, nowMs = Date.now()): Promise<EntraPrincipal> {
    const parts = jwt.split('.');
    if (parts.length !== 3) throw unauthorized('The AAD token is not a JWT (header.payload.signature).');
    const header = decodePart(parts[0], 'header');
    const claims = decodePart(parts[1], 'payload');
    if (header.alg !== 'RS256') throw unauthorized(`The AAD token is signed with ${String(header.alg)}; only RS256 tokens are accepted.`);
    const key = await this.keyFor(String(header.kid ?? ''), nowMs);
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
    if (!key || !verifySignature('RSA-SHA256', signed, key, Buffer.from(parts[2], 'base64url'))) {
      throw unauthorized('The AAD token signature is invalid: it is not signed by a key the issuer publishes.');
    }
    if (claims.iss !== this.issuer)
      throw unauthorized(`The AAD token issuer ${String(claims.iss)} is not trusted by this account (expected ${this.issuer}).`);
    const audiences = [
      ...COSMOS_AUDIENCES,
      ...(this.options.audiences ?? []),
      ...this.accountEndpoints().flatMap((e) => [e.replace(/\/$/, ''), e.replace(/\/?$/, '/')]),
    ];
    if (typeof claims.aud !== 'string' || !audiences.includes(claims.aud)) {
      throw unauthorized(
        `The AAD token audience ${String(claims.aud)} is not valid for Cosmos DB: request a token for https://cosmos.azure.com/.default or the account endpoint.`,
      );
    }
    const now = nowMs / 1000;
    const skew = this.options.clockSkewSeconds ?? 300;
    if (typeof claims.exp !== 'number' || claims.exp + skew < now)
      throw unauthorized(`The AAD token has expired (exp ${String(claims.exp)}, now ${Math.floor(now)}).`);
    if (typeof claims.nbf === 'number' && claims.nbf - skew > now)
      throw unauthorized('The AAD token is not valid yet (nbf is in the future).');
    const objectId = typeof claims.oid === 'string' ? claims.oid : typeof claims.sub === 'string' ? claims.sub : undefined;
    if (!objectId) throw unauthorized('The AAD token names no principal (no oid or sub claim).');
    return { objectId, tenantId: typeof claims.tid === 'string' ? claims.tid : undefined };
  }

  private async keyFor(kid: string, nowMs: number): Promise<KeyObject | undefined> {
    if ((!this.keys.has(kid) || !this.issuer) && nowMs - this.lastFetchMs >= KEY_REFRESH_MIN_MS) await this.fetchKeys(nowMs);
    return this.keys.get(kid);
  }

  private async fetchKeys(nowMs: number): Promise<void> {
    this.lastFetchMs = nowMs;
    try {
      const config = (await getJson(this.options.openIdConfigurationUrl)) as { issuer?: unknown; jwks_uri?: unknown };
      if (typeof config.issuer !== 'string' || typeof config.jwks_uri !== 'string') throw new Error('no issuer or jwks_uri');
      const jwks = (await getJson(config.jwks_uri)) as { keys?: Array<JsonWebKey & { kid?: string }> };
      const keys = new Map<string, KeyObject>();
      for (const jwk of jwks.keys ?? []) if (jwk.kid && jwk.kty === 'RSA') keys.set(jwk.kid, createPublicKey({ key: jwk, format: 'jwk' }));
      this.issuer = config.issuer;
      this.keys = keys;
    } catch (err) {
      this.lastFetchMs = 0; // a failed read is retried by the next request
      throw new CosmosError(
        401,
        'Unauthorized',
        `The AAD token cannot be checked: the issuer's keys could not be read from ${this.options.openIdConfigurationUrl} (${err instanceof Error ? err.message : String(err)}).`,
      );
    }
  }
}

function decodePart(part: string, what: string): Record<string, unknown> {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw unauthorized(`The AAD token ${what} is not base64url-encoded JSON.`);
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}`);
  return res.json();
}

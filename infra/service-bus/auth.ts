import { createHmac, createPublicKey, timingSafeEqual, verify as verifySignature, JsonWebKey, KeyObject } from 'node:crypto';

/** What a token grants on its audience (Manage includes Send and Listen). */
export type Right = 'Manage' | 'Send' | 'Listen';

export interface SharedAccessKey {
  name: string;
  key: string;
  rights?: Right[];
}

export interface EntraIdOptions {
  /** JSON Web Key Set whose keys sign accepted tokens (RS256, ES256). */
  jwks: { keys: JsonWebKey[] };
  /** Accepted `iss` values, e.g. `https://login.microsoftonline.com/<tenant>/v2.0` or the local token service. */
  issuers: string[];
  /** Accepted `aud` values. @defaultValue https://servicebus.azure.net and https://servicebus.azure.net/ */
  audiences?: string[];
  /** Role assignments by principal object id (`oid`, else `sub`): role names, role definition ids or data actions. */
  roleAssignments?: Record<string, string[]>;
  /** Allowed clock skew in seconds. @defaultValue 300 */
  clockSkewSeconds?: number;
}

export interface AuthOptions {
  keys: SharedAccessKey[];
  entraId?: EntraIdOptions;
  /** Refuse SAS tokens as a namespace with `disableLocalAuth: true` does; Entra ID JWTs still work. */
  disableLocalAuth?: boolean;
}

/** What the service answers a SAS put-token with when local auth is disabled (status 401, as users report it). */
export const LOCAL_AUTH_DISABLED =
  'LocalAuthDisabled: Authorization failed because SAS authentication has been disabled for the namespace.';

export interface Claim {
  /** the scope the token covers, lower-case, without scheme and trailing slash: `host/path` */
  scope: string;
  rights: Set<Right>;
  expiresAt: number;
  principal?: string;
}

export class TokenError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const ROOT_KEY_NAME = 'RootManageSharedAccessKey';
/** The key the official emulator documents (`SharedAccessKey=SAS_KEY_VALUE`): local use only. */
export const EMULATOR_KEY_VALUE = 'SAS_KEY_VALUE';

const ROLE_RIGHTS: Record<string, Right[]> = {
  'azure service bus data owner': ['Manage', 'Send', 'Listen'],
  '090c5cfd-751d-490a-894a-3ce6f1109419': ['Manage', 'Send', 'Listen'],
  'azure service bus data sender': ['Send'],
  '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39': ['Send'],
  'azure service bus data receiver': ['Listen'],
  '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0': ['Listen'],
  'microsoft.servicebus/*': ['Manage', 'Send', 'Listen'],
  'microsoft.servicebus/namespaces/messages/send/action': ['Send'],
  'microsoft.servicebus/namespaces/messages/receive/action': ['Listen'],
};

export function rightsOfRoles(roles: string[]): Set<Right> {
  const out = new Set<Right>();
  for (const r of roles) for (const right of ROLE_RIGHTS[r.toLowerCase()] ?? []) out.add(right);
  return out;
}

/** `sb://host:port/path/` → `host:port/path` lower-cased (what scopes are compared on). */
export function scopeOf(uri: string): string {
  return uri
    .trim()
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/+$/, '')
    .toLowerCase();
}

export function scopeCovers(scope: string, resource: string): boolean {
  return resource === scope || resource.startsWith(scope + '/');
}

/**
 * Claims-based security on `$cbs`. A `put-token` carries a SAS token (`servicebus.windows.net:sastoken`)
 * or an Entra ID JWT (`jwt`). A valid token grants rights (Manage ⊃ Send, Listen) on an audience; links
 * are then checked against the claims held by their connection.
 */
export class Authenticator {
  private readonly jwks: Map<string | undefined, { key: KeyObject; alg: string }[]> = new Map();

  private readonly options: AuthOptions;

  constructor(options: AuthOptions) {
    // A copy: role assignments change at run time (assignRoles) without touching the caller's object.
    this.options = { ...options, entraId: options.entraId && { ...options.entraId } };
    if (options.entraId) {
      for (const jwk of options.entraId.jwks.keys) {
        const key = createPublicKey({ key: jwk, format: 'jwk' });
        const alg = jwk.kty === 'EC' ? 'ES256' : 'RS256';
        const kid = typeof jwk.kid === 'string' ? jwk.kid : undefined;
        const list = this.jwks.get(kid) ?? [];
        list.push({ key, alg });
        this.jwks.set(kid, list);
      }
    }
  }

  /**
   * Replaces a principal's role assignments, as `az role assignment create/delete` does on the namespace.
   * Takes effect at the principal's next put-token (the SDK sends one for every link it attaches).
   */
  assignRoles(objectId: string, roles: string[]): void {
    const entra = this.options.entraId;
    if (!entra) throw new Error('Entra ID is not configured on this namespace (entraId option).');
    entra.roleAssignments = { ...entra.roleAssignments, [objectId]: [...roles] };
  }

  /** Entra ID role assignments by principal object id (undefined without Entra ID). */
  roleAssignments(): Record<string, string[]> | undefined {
    return this.options.entraId ? { ...this.options.entraId.roleAssignments } : undefined;
  }

  /** Replaces every role assignment (the admin API's PUT /role-assignments). */
  setRoleAssignments(assignments: Record<string, string[]>): void {
    const entra = this.options.entraId;
    if (!entra) throw new Error('Entra ID is not configured on this namespace (entraId option).');
    entra.roleAssignments = Object.fromEntries(Object.entries(assignments).map(([oid, roles]) => [oid, [...roles]]));
  }

  /** Validates a put-token; `audience` is the `name` the client asked for. */
  validate(type: string, token: string, audience: string, now = Date.now()): Claim {
    if (type === 'servicebus.windows.net:sastoken') {
      if (this.options.disableLocalAuth) throw new TokenError(401, LOCAL_AUTH_DISABLED);
      return this.sas(token, audience, now);
    }
    if (type === 'jwt') return this.jwt(token, audience, now);
    throw new TokenError(400, `The token type '${type}' is not supported.`);
  }

  private sas(token: string, audience: string, now: number): Claim {
    const m = /^SharedAccessSignature\s+(.*)$/.exec(token.trim());
    if (!m) throw new TokenError(401, 'InvalidSignature: The token is not a SharedAccessSignature.');
    const fields = new Map<string, string>();
    for (const part of m[1].split('&')) {
      const eq = part.indexOf('=');
      if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
    }
    const sr = fields.get('sr');
    const sig = fields.get('sig');
    const se = fields.get('se');
    const skn = fields.get('skn');
    if (!sr || !sig || !se || !skn) throw new TokenError(401, 'InvalidSignature: The token is missing sr, sig, se or skn.');
    let keyName: string;
    let signature: Buffer;
    let resource: string;
    try {
      keyName = decodeURIComponent(skn);
      signature = Buffer.from(decodeURIComponent(sig), 'base64');
      resource = decodeURIComponent(sr);
    } catch {
      throw new TokenError(401, 'InvalidSignature: The token is not URL-encoded.');
    }
    const key = this.options.keys.find((k) => k.name === keyName);
    if (!key) throw new TokenError(401, `InvalidSignature: The shared access key '${keyName}' is not known.`);
    const expected = createHmac('sha256', key.key).update(`${sr}\n${se}`).digest();
    if (expected.length !== signature.length || !timingSafeEqual(expected, signature))
      throw new TokenError(401, 'InvalidSignature: The token has an invalid signature.');
    const expiry = Number(se);
    if (!Number.isFinite(expiry) || expiry * 1000 <= now)
      throw new TokenError(
        401,
        `ExpiredToken: The token is expired. Expiration time: '${Number.isFinite(expiry) ? new Date(expiry * 1000).toISOString() : se}'.`,
      );
    const scope = scopeOf(resource);
    if (!scopeCovers(scope, scopeOf(audience)))
      throw new TokenError(401, `InvalidAudience: The token audience '${resource}' does not cover '${audience}'.`);
    return { scope, rights: new Set(key.rights ?? ['Manage', 'Send', 'Listen']), expiresAt: expiry * 1000, principal: keyName };
  }

  private jwt(token: string, audience: string, now: number): Claim {
    const entra = this.options.entraId;
    if (!entra) throw new TokenError(401, 'InvalidToken: Entra ID tokens are not configured on this namespace.');
    const parts = token.split('.');
    if (parts.length !== 3) throw new TokenError(401, 'InvalidToken: The token is not a JWT.');
    let header: Record<string, unknown>;
    let payload: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Record<string, unknown>;
      payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new TokenError(401, 'InvalidToken: The token cannot be decoded.');
    }
    const alg = header.alg;
    if (alg !== 'RS256' && alg !== 'ES256')
      throw new TokenError(401, `InvalidSignature: The token algorithm '${String(alg)}' is not accepted.`);
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    const candidates = [...(this.jwks.get(kid) ?? []), ...(kid === undefined ? [] : (this.jwks.get(undefined) ?? []))].filter(
      (k) => k.alg === alg,
    );
    const data = Buffer.from(`${parts[0]}.${parts[1]}`);
    const sig = Buffer.from(parts[2], 'base64url');
    const ok = candidates.some((c) =>
      verifySignature('sha256', data, alg === 'ES256' ? { key: c.key, dsaEncoding: 'ieee-p1363' } : c.key, sig),
    );
    if (!ok) throw new TokenError(401, 'InvalidSignature: The token signature is not valid for any configured key.');
    const skew = (entra.clockSkewSeconds ?? 300) * 1000;
    const exp = typeof payload.exp === 'number' ? payload.exp * 1000 : NaN;
    if (!Number.isFinite(exp) || exp + skew <= now) throw new TokenError(401, `ExpiredToken: The token is expired.`);
    if (typeof payload.nbf === 'number' && payload.nbf * 1000 - skew > now)
      throw new TokenError(401, 'InvalidToken: The token is not valid yet (nbf).');
    if (typeof payload.iss !== 'string' || !entra.issuers.includes(payload.iss))
      throw new TokenError(401, `InvalidIssuer: The token issuer '${String(payload.iss)}' is not accepted.`);
    const audiences = entra.audiences ?? ['https://servicebus.azure.net', 'https://servicebus.azure.net/'];
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!aud.some((a) => typeof a === 'string' && audiences.includes(a)))
      throw new TokenError(401, `InvalidAudience: The token audience '${String(payload.aud)}' is not valid for Service Bus.`);
    const principal = typeof payload.oid === 'string' ? payload.oid : typeof payload.sub === 'string' ? payload.sub : undefined;
    const roles = [
      ...(Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : []),
      ...((principal && entra.roleAssignments?.[principal]) || []),
    ];
    // The namespace-wide token covers every entity the client asks for (RBAC scoped to the namespace).
    return { scope: scopeOf(audience).split('/')[0], rights: rightsOfRoles(roles), expiresAt: exp, principal };
  }
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestKind } from './counters';
import { CosmosError, unauthorized } from './errors';
import type { Store } from './store';
import { JsonValue, isJsonObject } from './types';
import { PermissionState, UserState } from './users';

/**
 * Resource tokens: what a permission read returns as `_token` and a client sends as
 * `type=resource&ver=1.0&sig=<sig>;<payload>;`. The payload names the permission and the expiry; the
 * signature (HMAC-SHA256 with the master key) makes it unforgeable. Like the service's, a token is
 * valid for an hour unless the permission read asked for another validity
 * (`x-ms-documentdb-expiry-seconds`, at most 5 hours), and only while its permission exists: each
 * request is checked against the permission as it is now.
 */
export const DEFAULT_TOKEN_SECONDS = 3600;
export const MAX_TOKEN_SECONDS = 18_000;

interface TokenPayload {
  db: string;
  user: string;
  perm: string;
  exp: number;
}

export interface ResourceRequest {
  method: string;
  segments: readonly string[];
  kind: RequestKind;
  isQuery: boolean;
  partitionKeyHeader: string | undefined;
}

const forbidden = (): CosmosError =>
  new CosmosError(
    403,
    'Forbidden',
    'Insufficient permissions provided in the authorization header for the corresponding request. Please retry with another authorization header.',
  );

export class ResourceTokens {
  private readonly keyBytes: Buffer;

  constructor(
    masterKey: string,
    private readonly store: Store,
  ) {
    this.keyBytes = Buffer.from(masterKey, 'base64');
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.keyBytes).update(payload).digest('base64');
  }

  mint(dbRid: string, user: UserState, p: PermissionState, nowMs: number, validitySeconds: number): string {
    const body: TokenPayload = { db: dbRid, user: user.rid, perm: p.rid, exp: Math.floor(nowMs / 1000) + validitySeconds };
    const payload = Buffer.from(JSON.stringify(body)).toString('base64');
    return `type=resource&ver=1.0&sig=${this.sign(payload)};${payload};`;
  }

  /** Throws 401 for a token that is not one of this emulator's or has expired, 403 for a request it does not cover. */
  verify(token: string, req: ResourceRequest, nowMs: number): void {
    const at = token.indexOf('&sig=');
    const [sig, payload] = at < 0 ? [] : token.slice(at + 5).split(';');
    if (!sig || !payload) throw unauthorized('The resource token is malformed: expected type=resource&ver=1.0&sig=<signature>;<payload>;');
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      throw unauthorized('The resource token was not issued by this account.');
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
    } catch {
      throw unauthorized('The resource token is malformed.');
    }
    if (!isJsonObject(parsed) || typeof parsed.exp !== 'number') throw unauthorized('The resource token is malformed.');
    if (parsed.exp * 1000 < nowMs) throw unauthorized('The resource token has expired: read the permission again for a new token.');
    const permission = this.permission(String(parsed.db), String(parsed.user), String(parsed.perm));
    if (!permission || !covers(permission, req)) throw forbidden();
  }

  private permission(dbRid: string, userRid: string, permRid: string): PermissionState | undefined {
    for (const db of this.store.databases.values()) {
      if (db.rid !== dbRid) continue;
      for (const u of db.users.values()) if (u.rid === userRid) return u.permissions.find((p) => p.rid === permRid);
    }
    return undefined;
  }
}

const READ_KINDS: RequestKind[] = ['pointRead', 'query', 'queryPlan', 'readFeed', 'changeFeed', 'pkranges'];

function isRead(req: ResourceRequest): boolean {
  if (READ_KINDS.includes(req.kind)) return true;
  return req.kind === 'metadata' && (req.method === 'GET' || req.method === 'HEAD' || req.isQuery);
}

function startsWith(longer: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= longer.length && prefix.every((s, i) => longer[i] === s);
}

/**
 * Whether a permission covers a request: the account read (every client makes it) and reads of the
 * scope's ancestors (the database, the container and its partition key ranges, which the SDK reads to
 * route) always; the scope itself and what is under it by mode (`Read`: reads and queries; `All`:
 * everything); with a `resourcePartitionKey`, item requests only for that logical partition.
 */
function covers(p: PermissionState, req: ResourceRequest): boolean {
  const s = req.segments;
  if (s.length === 0) return req.method === 'GET';
  const read = isRead(req);
  if (!startsWith(s, p.scope)) {
    if (!read) return false;
    const ancestor = s.length % 2 === 0 && startsWith(p.scope, s);
    const rangesOfScope = s.length === 5 && s[4] === 'pkranges' && startsWith(p.scope, s.slice(0, 4));
    return ancestor || rangesOfScope;
  }
  if (p.mode === 'Read' && !read) return false;
  if (p.resourcePartitionKey !== undefined && s.length >= 5 && s[4] === 'docs')
    return samePartitionKey(p.resourcePartitionKey, req.partitionKeyHeader);
  return true;
}

function samePartitionKey(granted: JsonValue[], header: string | undefined): boolean {
  if (header === undefined) return false;
  try {
    return JSON.stringify(JSON.parse(header)) === JSON.stringify(granted);
  } catch {
    return false;
  }
}

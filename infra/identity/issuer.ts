import { randomUUID } from 'node:crypto';
import { signJwt } from './jwt';
import { createSigningKey, type SigningKey } from './keys';
import type { Principal } from './principals';

/**
 * What the next token(s) should get wrong, for tests of the verifying side: expired, for another
 * audience, from another issuer, or signed by a key that is not published.
 */
export interface TokenFault {
  expired?: boolean;
  audience?: string;
  issuer?: string;
  unpublishedKey?: boolean;
  /** How many tokens the fault applies to. @defaultValue 1 */
  count?: number;
}

export interface IssuedToken {
  accessToken: string;
  /** Seconds since the epoch. */
  expiresOn: number;
  audience: string;
}

/**
 * Signs Entra ID style v1.0 access tokens (the version managed identity tokens have): `aud` is the
 * requested resource, `iss` this service's issuer, `oid`/`sub` the principal's object id, `appid`
 * its client id, `tid` the tenant.
 */
export class TokenIssuer {
  private readonly rogueKey: SigningKey = createSigningKey();
  private faults: Array<TokenFault & { left: number }> = [];
  issued = 0;

  constructor(
    readonly key: SigningKey,
    readonly issuer: string,
    readonly tenantId: string,
    private readonly lifetimeSeconds: number,
  ) {}

  /** The next `fault.count` tokens carry the fault (queued after any fault still pending). */
  injectFault(fault: TokenFault): void {
    this.faults.push({ ...fault, left: fault.count ?? 1 });
  }

  issue(principal: Principal, resource: string, nowMs = Date.now()): IssuedToken {
    const fault = this.faults[0];
    if (fault && --fault.left <= 0) this.faults.shift();
    const now = Math.floor(nowMs / 1000);
    // An expired token was valid for a while and ran out a minute ago, beyond any clock skew allowance.
    const exp = fault?.expired ? now - 600 : now + this.lifetimeSeconds;
    const iat = fault?.expired ? exp - this.lifetimeSeconds : now;
    const audience = fault?.audience ?? resource;
    const claims = {
      aud: audience,
      iss: fault?.issuer ?? this.issuer,
      iat,
      nbf: iat,
      exp,
      appid: principal.clientId,
      appidacr: '2',
      idp: this.issuer,
      oid: principal.objectId,
      sub: principal.objectId,
      tid: this.tenantId,
      uti: randomUUID().replace(/-/g, ''),
      ver: '1.0',
      xms_mirid: principal.resourceId,
    };
    this.issued++;
    return { accessToken: signJwt(fault?.unpublishedKey ? this.rogueKey : this.key, claims), expiresOn: exp, audience };
  }
}

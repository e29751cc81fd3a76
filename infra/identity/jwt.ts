import type { SigningKey } from './keys';

/** A compact JWS (RS256) over `claims`, with the key's `kid` in the header as Entra ID tokens carry it. */
export function signJwt(key: SigningKey, claims: Record<string, unknown>): string {
  const header = { typ: 'JWT', alg: 'RS256', kid: key.kid, x5t: key.kid };
  const signingInput = `${b64(header)}.${b64(claims)}`;
  return `${signingInput}.${key.sign(Buffer.from(signingInput, 'ascii')).toString('base64url')}`;
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

import { createHash, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';

/**
 * The token service's signing key: RSA 2048, RS256, published as a JWK whose `kid` is its RFC 7638
 * thumbprint (the way Entra ID names keys by a stable id, so a verifier can pick the right one).
 * A fresh key is made at every start: tokens of an earlier run no longer verify, as after a rotation.
 */
export interface SigningKey {
  readonly kid: string;
  readonly publicJwk: JsonWebKey & { kid: string; use: 'sig'; alg: 'RS256'; kty: 'RSA' };
  sign(data: Buffer): Buffer;
}

export function createSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  const kid = thumbprint(jwk);
  return {
    kid,
    publicJwk: { kty: 'RSA', n: jwk.n, e: jwk.e, kid, use: 'sig', alg: 'RS256' },
    sign: (data) => signWith(privateKey, data),
  };
}

function signWith(key: KeyObject, data: Buffer): Buffer {
  return sign('RSA-SHA256', data, key);
}

/** RFC 7638: SHA-256 over the required members in lexical order, base64url. */
function thumbprint(jwk: JsonWebKey): string {
  const canonical = JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n });
  return createHash('sha256').update(canonical).digest('base64url');
}

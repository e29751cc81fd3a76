import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { DefaultAzureCredential, ManagedIdentityCredential } from '@azure/identity';
import { startTokenService, type TokenService } from '@opstream/token-service';

/**
 * The local token service through the real `@azure/identity` credentials: env vars only (the App
 * Service managed identity protocol), tokens that verify against the keys it publishes, and the
 * admin calls that add principals and spoil the next token.
 */
function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

async function verifiesAgainstPublishedKeys(ts: TokenService, token: string): Promise<boolean> {
  const config = (await (await fetch(ts.openIdConfigurationUrl)).json()) as { issuer: string; jwks_uri: string };
  const { keys } = (await (await fetch(config.jwks_uri)).json()) as { keys: Array<JsonWebKey & { kid: string }> };
  const [h, p, s] = token.split('.');
  const { kid } = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { kid: string };
  const jwk = keys.find((k) => k.kid === kid);
  if (!jwk) return false;
  return verify('RSA-SHA256', Buffer.from(`${h}.${p}`), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(s, 'base64url'));
}

describe('local token service (infra/identity)', () => {
  let ts: TokenService;
  const saved = { ...process.env };

  beforeAll(async () => {
    ts = await startTokenService({ principals: [{ systemAssigned: true }, { clientId: '11111111-1111-1111-1111-111111111111' }] });
  });
  afterAll(async () => {
    await ts.close();
  });
  afterEach(() => {
    for (const k of ['IDENTITY_ENDPOINT', 'IDENTITY_HEADER', 'AZURE_CLIENT_ID', 'AZURE_TOKEN_CREDENTIALS']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  test('ManagedIdentityCredential gets a token for the system-assigned identity from IDENTITY_ENDPOINT and IDENTITY_HEADER alone', async () => {
    Object.assign(process.env, ts.env());
    const token = await new ManagedIdentityCredential().getToken('https://cosmos.azure.com/.default');
    const claims = claimsOf(token.token);
    const system = ts.principals().find((p) => p.systemAssigned);
    expect(claims).toMatchObject({ aud: 'https://cosmos.azure.com', iss: ts.issuer, tid: ts.tenantId, oid: system?.objectId, ver: '1.0' });
    expect(token.expiresOnTimestamp).toBeGreaterThan(Date.now() + 3000_000);
    await expect(verifiesAgainstPublishedKeys(ts, token.token)).resolves.toBe(true);
  });

  test('DefaultAzureCredential narrowed by AZURE_TOKEN_CREDENTIALS picks the user-assigned identity named by AZURE_CLIENT_ID', async () => {
    Object.assign(process.env, ts.env('11111111-1111-1111-1111-111111111111'), { AZURE_TOKEN_CREDENTIALS: 'ManagedIdentityCredential' });
    const token = await new DefaultAzureCredential().getToken('https://servicebus.azure.net/.default');
    expect(claimsOf(token.token)).toMatchObject({ appid: '11111111-1111-1111-1111-111111111111', aud: 'https://servicebus.azure.net' });
  });

  test('an unknown client id is refused with a message the credential passes on', async () => {
    Object.assign(process.env, ts.env());
    const credential = new ManagedIdentityCredential({ clientId: '22222222-2222-2222-2222-222222222222' });
    await expect(credential.getToken('https://cosmos.azure.com/.default')).rejects.toThrow(
      /No managed identity found for the specified id 22222222/,
    );
  });

  test('admin calls add a principal, and spoil the next token only (expired, wrong audience, unpublished key)', async () => {
    const admin = (method: string, path: string, body?: unknown): Promise<Response> =>
      fetch(`${ts.url}/_admin/${path}`, {
        method,
        headers: { authorization: `Bearer ${ts.adminToken}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect((await admin('PUT', 'principals/33333333-3333-3333-3333-333333333333', { objectId: 'oid-3' })).status).toBe(200);
    expect((await fetch(`${ts.url}/_admin/principals`)).status).toBe(401);
    const get = async (): Promise<Record<string, unknown> & { token: string }> => {
      const res = await fetch(
        `${ts.identityEndpoint}?api-version=2019-08-01&resource=https://cosmos.azure.com&client_id=33333333-3333-3333-3333-333333333333`,
        {
          headers: { 'x-identity-header': ts.identityHeader },
        },
      );
      const body = (await res.json()) as { access_token: string };
      return { ...claimsOf(body.access_token), token: body.access_token };
    };
    await admin('POST', 'next-token', { expired: true });
    const expired = await get();
    expect(Number(expired.exp)).toBeLessThan(Date.now() / 1000);
    expect(expired.oid).toBe('oid-3');
    await admin('POST', 'next-token', { audience: 'https://management.azure.com' });
    expect((await get()).aud).toBe('https://management.azure.com');
    await admin('POST', 'next-token', { unpublishedKey: true });
    await expect(verifiesAgainstPublishedKeys(ts, (await get()).token)).resolves.toBe(false);
    const healthy = await get();
    expect(healthy.aud).toBe('https://cosmos.azure.com');
    expect(Number(healthy.exp)).toBeGreaterThan(Date.now() / 1000);
    await expect(verifiesAgainstPublishedKeys(ts, healthy.token)).resolves.toBe(true);
    expect((await admin('DELETE', 'principals/33333333-3333-3333-3333-333333333333')).status).toBe(204);
    expect(ts.principals().some((p) => p.clientId.startsWith('3333'))).toBe(false);
  });

  test('a request without the identity header is refused', async () => {
    const res = await fetch(`${ts.identityEndpoint}?api-version=2019-08-01&resource=https://cosmos.azure.com`);
    expect(res.status).toBe(401);
  });
});

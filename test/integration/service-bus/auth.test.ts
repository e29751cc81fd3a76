import { ServiceBusClient, ServiceBusError } from '@azure/service-bus';
import { AccessToken, TokenCredential } from '@azure/core-auth';
import { generateKeyPairSync, sign, KeyObject, JsonWebKey } from 'node:crypto';
import { ServiceBusEmulator, startServiceBus } from '@opstream/service-bus-emulator';
import { CONFIG } from './helpers';

const ISSUER = 'https://login.local/tenant/v2.0';

function jwt(key: KeyObject, alg: 'RS256' | 'ES256', kid: string, claims: Record<string, unknown>): string {
  const enc = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = `${enc({ alg, kid, typ: 'JWT' })}.${enc(claims)}`;
  const sig = sign('sha256', Buffer.from(head), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${head}.${sig.toString('base64url')}`;
}

class StaticCredential implements TokenCredential {
  constructor(private readonly token: () => string) {}
  async getToken(): Promise<AccessToken> {
    return { token: this.token(), expiresOnTimestamp: Date.now() + 3600_000 };
  }
}

describe('service bus emulator: $cbs claims-based security', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let emu: ServiceBusEmulator;
  const clients: ServiceBusClient[] = [];
  beforeAll(async () => {
    const jwks = {
      keys: [
        { ...(rsa.publicKey.export({ format: 'jwk' }) as JsonWebKey), kid: 'r1' },
        { ...(ec.publicKey.export({ format: 'jwk' }) as JsonWebKey), kid: 'e1' },
      ],
    };
    emu = await startServiceBus({
      port: 0,
      config: CONFIG,
      keys: [
        { name: 'RootManageSharedAccessKey', key: 'SAS_KEY_VALUE' },
        { name: 'send-only', key: 'send-secret', rights: ['Send'] },
      ],
      entraId: { jwks, issuers: [ISSUER], roleAssignments: { 'oid-receiver': ['Azure Service Bus Data Receiver'] } },
    });
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await emu.close();
  });
  const client = (cs: string): ServiceBusClient => {
    const c = new ServiceBusClient(cs, { retryOptions: { maxRetries: 0, timeoutInMs: 5000 } });
    clients.push(c);
    return c;
  };
  const withKey = (name: string, key: string): string =>
    emu.connectionString.replace(/SharedAccessKeyName=[^;]+;SharedAccessKey=[^;]+/, `SharedAccessKeyName=${name};SharedAccessKey=${key}`);
  /**
   * A client that puts Entra ID tokens on $cbs (type jwt). The SDK only speaks plain TCP to a
   * connection string with UseDevelopmentEmulator=true and always uses TLS with a TokenCredential, so the
   * credential is swapped into a development-emulator client: every token then goes through the SDK's
   * own AAD path (scope https://servicebus.azure.net/.default, type jwt).
   */
  const aad = (token: () => string): ServiceBusClient => {
    const c = client(emu.connectionString);
    (c as unknown as { _connectionContext: { tokenCredential: TokenCredential } })._connectionContext.tokenCredential =
      new StaticCredential(token);
    return c;
  };

  it('refuses a SAS token signed with the wrong key with 401 (UnauthorizedAccess, not retried)', async () => {
    const err = await client(withKey('RootManageSharedAccessKey', 'wrong'))
      .createSender('orders')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceBusError);
    expect((err as ServiceBusError).code).toBe('UnauthorizedAccess');
    expect((err as ServiceBusError).message).toMatch(/InvalidSignature/);
    expect(emu.counters().cbsRejected).toBeGreaterThanOrEqual(1);
  });

  it('refuses an unknown key name, and a Send-only key on a receiver link', async () => {
    const unknown = await client(withKey('nobody', 'x'))
      .createSender('orders')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect((unknown as ServiceBusError).code).toBe('UnauthorizedAccess');
    const sendOnly = client(withKey('send-only', 'send-secret'));
    await sendOnly.createSender('orders').sendMessages({ body: 'ok' });
    const err = await sendOnly
      .createReceiver('orders')
      .receiveMessages(1, { maxWaitTimeInMs: 500 })
      .catch((e: unknown) => e);
    expect((err as ServiceBusError).code).toBe('UnauthorizedAccess');
    expect((err as ServiceBusError).message).toMatch(/'Listen' claim\(s\) are required/);
    const drain = client(emu.connectionString).createReceiver('orders', { receiveMode: 'receiveAndDelete' });
    expect((await drain.receiveMessages(1, { maxWaitTimeInMs: 2000 })).map((m) => m.body)).toEqual(['ok']);
  });

  it('accepts Entra ID JWTs (RS256 and ES256) signed by a JWKS key, with rights from roles', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = { iss: ISSUER, aud: 'https://servicebus.azure.net', iat: now, nbf: now, exp: now + 3600 };
    const owner = aad(() => jwt(rsa.privateKey, 'RS256', 'r1', { ...base, oid: 'oid-owner', roles: ['Azure Service Bus Data Owner'] }));
    await owner.createSender('orders').sendMessages({ body: 'from-aad' });
    const receiver = aad(() => jwt(ec.privateKey, 'ES256', 'e1', { ...base, oid: 'oid-receiver' }));
    const r = receiver.createReceiver('orders', { receiveMode: 'receiveAndDelete' });
    expect((await r.receiveMessages(1, { maxWaitTimeInMs: 2000 })).map((m) => m.body)).toEqual(['from-aad']);
    const noSend = await receiver
      .createSender('orders')
      .sendMessages({ body: 'x' })
      .catch((e: unknown) => e);
    expect((noSend as ServiceBusError).code).toBe('UnauthorizedAccess');
  });

  it.each([
    [
      'a foreign signing key',
      () =>
        jwt(other.privateKey, 'RS256', 'r1', {
          iss: ISSUER,
          aud: 'https://servicebus.azure.net',
          exp: Math.floor(Date.now() / 1000) + 600,
          roles: ['Azure Service Bus Data Owner'],
        }),
      /InvalidSignature/,
    ],
    [
      'an expired token',
      () =>
        jwt(rsa.privateKey, 'RS256', 'r1', {
          iss: ISSUER,
          aud: 'https://servicebus.azure.net',
          exp: Math.floor(Date.now() / 1000) - 3600,
          roles: ['Azure Service Bus Data Owner'],
        }),
      /ExpiredToken/,
    ],
    [
      'the wrong audience',
      () =>
        jwt(rsa.privateKey, 'RS256', 'r1', {
          iss: ISSUER,
          aud: 'https://cosmos.azure.com',
          exp: Math.floor(Date.now() / 1000) + 600,
          roles: ['Azure Service Bus Data Owner'],
        }),
      /InvalidAudience/,
    ],
    [
      'the wrong issuer',
      () =>
        jwt(rsa.privateKey, 'RS256', 'r1', {
          iss: 'https://evil',
          aud: 'https://servicebus.azure.net',
          exp: Math.floor(Date.now() / 1000) + 600,
          roles: ['Azure Service Bus Data Owner'],
        }),
      /InvalidIssuer/,
    ],
  ])('refuses a JWT with %s (401)', async (_what, token, message) => {
    const err = await aad(token)
      .createSender('orders')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect((err as ServiceBusError).code).toBe('UnauthorizedAccess');
    expect((err as ServiceBusError).message).toMatch(message);
  });
});

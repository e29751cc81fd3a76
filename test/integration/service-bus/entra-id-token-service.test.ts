import { ManagedIdentityCredential } from '@azure/identity';
import type { TokenCredential } from '@azure/core-auth';
import { ServiceBusClient, type ServiceBusError } from '@azure/service-bus';
import type { JsonWebKey } from 'node:crypto';
import { startTokenService, type TokenService } from '@opstream/token-service';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { CONFIG } from './helpers';

/**
 * The Service Bus stand-in and the local token service together, as a namespace and Entra ID are:
 * the stand-in trusts the keys the token service publishes (its JWKS URL) and its issuer, and
 * `ManagedIdentityCredential` gets the tokens from IDENTITY_ENDPOINT/IDENTITY_HEADER alone. The SDK
 * speaks plain TCP only to a development-emulator connection string and TLS with a credential, so the
 * credential is swapped into a development-emulator client (see auth.test.ts): every token still goes
 * through the SDK's own Entra ID path on $cbs.
 */
describe('service bus emulator: Entra ID tokens from the local token service', () => {
  let ts: TokenService;
  let emu: ServiceBusEmulator;
  const clients: ServiceBusClient[] = [];
  const saved = { IDENTITY_ENDPOINT: process.env.IDENTITY_ENDPOINT, IDENTITY_HEADER: process.env.IDENTITY_HEADER };
  let sender: { clientId: string; objectId: string };
  let stranger: { clientId: string; objectId: string };
  /** Asks for its first token in the expiry test (credentials cache tokens per identity). */
  let late: { clientId: string; objectId: string };

  beforeAll(async () => {
    ts = await startTokenService({ principals: [{ systemAssigned: true }] });
    sender = ts.addPrincipal();
    stranger = ts.addPrincipal();
    late = ts.addPrincipal();
    const jwks = (await (await fetch(ts.jwksUrl)).json()) as { keys: JsonWebKey[] };
    emu = await startServiceBus({
      port: 0,
      config: CONFIG,
      entraId: {
        jwks,
        issuers: [ts.issuer],
        roleAssignments: { [sender.objectId]: ['Azure Service Bus Data Owner'], [late.objectId]: ['Azure Service Bus Data Owner'] },
      },
    });
    Object.assign(process.env, ts.env());
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await emu.close();
    await ts.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const clientAs = (clientId: string): ServiceBusClient => {
    const c = new ServiceBusClient(emu.connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 5000 } });
    clients.push(c);
    (c as unknown as { _connectionContext: { tokenCredential: TokenCredential } })._connectionContext.tokenCredential =
      new ManagedIdentityCredential({ clientId });
    return c;
  };

  it('a principal with a data role sends and receives with tokens the token service issued', async () => {
    const c = clientAs(sender.clientId);
    await c.createSender('orders').sendMessages({ body: 'from-managed-identity' });
    const received = await c.createReceiver('orders', { receiveMode: 'receiveAndDelete' }).receiveMessages(1, { maxWaitTimeInMs: 2000 });
    expect(received.map((m) => m.body)).toEqual(['from-managed-identity']);
    expect(ts.counters().issued).toBeGreaterThan(0);
  });

  it('a principal the token service knows but the namespace gives no role is refused (UnauthorizedAccess)', async () => {
    const err = await clientAs(stranger.clientId)
      .createSender('orders')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect((err as ServiceBusError).code).toBe('UnauthorizedAccess');
  });

  it('an expired token from the token service is refused (ExpiredToken)', async () => {
    ts.injectFault({ expired: true });
    const err = await clientAs(late.clientId)
      .createSender('orders')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect((err as ServiceBusError | undefined)?.code).toBe('UnauthorizedAccess');
    expect((err as Error).message).toMatch(/ExpiredToken/);
  });
});

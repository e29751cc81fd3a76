import * as net from 'node:net';
import * as tls from 'node:tls';
import type { JsonWebKey } from 'node:crypto';
import { AzureNamedKeyCredential } from '@azure/core-auth';
import { ManagedIdentityCredential } from '@azure/identity';
import { ServiceBusClient, type ServiceBusError } from '@azure/service-bus';
import { startTokenService, type TokenService } from '@opstream/token-service';
import { EMULATOR_KEY_VALUE, ROOT_KEY_NAME, startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { trustCertificate } from '../../helpers/trust-certificate';
import { waitFor } from '../../helpers/wait-for';
import { CONFIG } from './helpers';

const NAMESPACE = 'sbemulatorns.servicebus.windows.net';
const RETRY = { maxRetries: 0, timeoutInMs: 5000 };

/** Resolves once the server closed `socket` (or it errored), within the waitFor timeout. */
async function closedByServer(socket: net.Socket): Promise<void> {
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => (closed = true));
  await waitFor(() => closed, { timeoutMs: 10_000, describe: () => 'the stand-in to close the bad connection' });
}

/**
 * The stand-in as a production namespace is reached: AMQPS with its self-signed certificate, the
 * SDK's own TokenCredential path (no client surgery) with tokens from the local token service, and
 * local (SAS) auth disabled. Bad TLS clients affect their own socket only.
 */
describe('service bus emulator: AMQPS listener, Entra ID through the SDK, disableLocalAuth', () => {
  let ts: TokenService;
  let emu: ServiceBusEmulator;
  let untrust: () => void;
  const internalErrors: unknown[] = [];
  const clients: ServiceBusClient[] = [];
  const saved = { IDENTITY_ENDPOINT: process.env.IDENTITY_ENDPOINT, IDENTITY_HEADER: process.env.IDENTITY_HEADER };
  let owner: { clientId: string; objectId: string };
  let stranger: { clientId: string; objectId: string };

  beforeAll(async () => {
    ts = await startTokenService();
    owner = ts.addPrincipal();
    stranger = ts.addPrincipal();
    const jwks = (await (await fetch(ts.jwksUrl)).json()) as { keys: JsonWebKey[] };
    emu = await startServiceBus({
      port: 0,
      tls: true,
      tlsPort: 0,
      disableLocalAuth: true,
      config: CONFIG,
      entraId: { jwks, issuers: [ts.issuer], roleAssignments: { [owner.objectId]: ['Azure Service Bus Data Owner'] } },
      onInternalError: (err) => internalErrors.push(err),
    });
    untrust = trustCertificate(emu.caCertificate ?? '');
    Object.assign(process.env, ts.env());
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    untrust?.();
    await emu?.close();
    await ts?.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const entraClient = (clientId: string): ServiceBusClient => {
    const c = new ServiceBusClient(NAMESPACE, new ManagedIdentityCredential({ clientId }), {
      customEndpointAddress: emu.tlsEndpoint,
      retryOptions: RETRY,
    });
    clients.push(c);
    return c;
  };

  it('listens for AMQPS with a certificate for loopback', () => {
    expect(emu.tlsEndpoint).toMatch(/^amqps:\/\/127\.0\.0\.1:\d+$/);
    expect(emu.caCertificate).toContain('-----BEGIN CERTIFICATE-----');
  });

  it('ServiceBusClient(namespace, credential, {customEndpointAddress}) sends and receives over TLS with tokens of the token service', async () => {
    const c = entraClient(owner.clientId);
    await c.createSender('orders').sendMessages({ body: 'over-amqps' });
    const received = await c.createReceiver('orders', { receiveMode: 'receiveAndDelete' }).receiveMessages(1, { maxWaitTimeInMs: 3000 });
    expect(received.map((m) => m.body)).toEqual(['over-amqps']);
    expect(ts.counters().issued).toBeGreaterThan(0);
  });

  it('a principal without a data role is refused (UnauthorizedAccess), and works once a role is assigned', async () => {
    const err = await entraClient(stranger.clientId)
      .createSender('orders')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect((err as ServiceBusError).code).toBe('UnauthorizedAccess');
    expect((err as Error).message).toMatch(/'Send' claim\(s\) are required/);
    emu.assignRoles(stranger.objectId, ['Azure Service Bus Data Sender']);
    await entraClient(stranger.clientId).createSender('orders').sendMessages({ body: 'now-allowed' });
    const got = await entraClient(owner.clientId)
      .createReceiver('orders', { receiveMode: 'receiveAndDelete' })
      .receiveMessages(1, { maxWaitTimeInMs: 3000 });
    expect(got.map((m) => m.body)).toEqual(['now-allowed']);
  });

  it('the admin API shows and replaces the role assignments (what az role assignment does)', async () => {
    const call = async (method: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
      const res = await fetch(`${emu.adminUrl}/role-assignments`, {
        method,
        headers: { authorization: `Bearer ${emu.adminKey}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as unknown };
    };
    const before = (await call('GET')).json as Record<string, string[]>;
    expect(before[owner.objectId]).toEqual(['Azure Service Bus Data Owner']);
    expect((await call('PUT', { [owner.objectId]: 'not-a-list' })).status).toBe(400);
    const late = ts.addPrincipal();
    const refused = await entraClient(late.clientId)
      .createSender('orders')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect((refused as ServiceBusError).code).toBe('UnauthorizedAccess');
    expect((await call('PUT', { ...before, [late.objectId]: ['Azure Service Bus Data Sender'] })).status).toBe(200);
    await entraClient(late.clientId).createSender('orders').sendMessages({ body: 'assigned-by-admin' });
    const got = await entraClient(owner.clientId)
      .createReceiver('orders', { receiveMode: 'receiveAndDelete' })
      .receiveMessages(1, { maxWaitTimeInMs: 3000 });
    expect(got.map((m) => m.body)).toEqual(['assigned-by-admin']);
  });

  it('refuses SAS with the service error LocalAuthDisabled, over plain TCP and over TLS', async () => {
    const plain = new ServiceBusClient(emu.connectionString, { retryOptions: RETRY });
    clients.push(plain);
    const overTcp = await plain
      .createSender('orders')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect((overTcp as ServiceBusError).code).toBe('UnauthorizedAccess');
    expect((overTcp as Error).message).toMatch(
      /^LocalAuthDisabled: Authorization failed because SAS authentication has been disabled for the namespace\. TrackingId:/,
    );
    const sasOverTls = new ServiceBusClient(NAMESPACE, new AzureNamedKeyCredential(ROOT_KEY_NAME, EMULATOR_KEY_VALUE), {
      customEndpointAddress: emu.tlsEndpoint,
      retryOptions: RETRY,
    });
    clients.push(sasOverTls);
    const overTls = await sasOverTls
      .createSender('orders')
      .sendMessages({ body: 1 })
      .catch((e: unknown) => e);
    expect((overTls as ServiceBusError).code).toBe('UnauthorizedAccess');
    expect((overTls as Error).message).toMatch(/LocalAuthDisabled/);
  });

  it('plain AMQP, garbage bytes and a client that does not trust the certificate on the TLS port end their own socket only', async () => {
    const tlsPort = emu.tlsPort as number;
    const amqpHeader = net.connect(tlsPort, '127.0.0.1', () => amqpHeader.write(Buffer.from('AMQP\x00\x01\x00\x00', 'binary')));
    await closedByServer(amqpHeader);
    const garbage = net.connect(tlsPort, '127.0.0.1', () => garbage.write(Buffer.alloc(4096, 0xa5)));
    await closedByServer(garbage);
    // Handshake refused by the client (unknown CA): the server sees an aborted handshake.
    const distrust = tls.connect({ port: tlsPort, host: '127.0.0.1', ca: [], rejectUnauthorized: true });
    await closedByServer(distrust);
    // A trusted TLS connection that then speaks garbage instead of AMQP (or HTTP, which goes to the administration API).
    const tlsGarbage = tls.connect({ port: tlsPort, host: '127.0.0.1', ca: [emu.caCertificate] }, () =>
      tlsGarbage.write(Buffer.alloc(64, 0xa5)),
    );
    await closedByServer(tlsGarbage);
    // A TCP connection dropped half way through the handshake.
    const half = net.connect(tlsPort, '127.0.0.1', () => {
      half.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]));
      half.destroy();
    });
    await waitFor(() => half.destroyed, { timeoutMs: 5000 });

    const c = entraClient(owner.clientId);
    await c.createSender('orders').sendMessages({ body: 'still-serving' });
    const received = await c.createReceiver('orders', { receiveMode: 'receiveAndDelete' }).receiveMessages(1, { maxWaitTimeInMs: 3000 });
    expect(received.map((m) => m.body)).toEqual(['still-serving']);
    expect(internalErrors).toEqual([]);
  });
});

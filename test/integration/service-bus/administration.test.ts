import { createHmac, generateKeyPairSync, sign, type JsonWebKey } from 'node:crypto';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { RestError } from '@azure/core-rest-pipeline';
import type { TokenCredential } from '@azure/core-auth';
import { ServiceBusAdministrationClient, ServiceBusClient, isServiceBusError } from '@azure/service-bus';
import { ServiceBusEmulator, startServiceBus } from '@opstream/service-bus-emulator';
import { waitFor } from '../../helpers/wait-for';

/**
 * The administration API through the real `ServiceBusAdministrationClient` (ATOM over HTTPS, on the same
 * endpoint as AMQP, trusting the stand-in's certificate), with `ServiceBusClient` to move messages.
 */
const CONFIG = { UserConfig: { Namespaces: [{ Name: 'sbemulatorns', Queues: [{ Name: 'from-config', Properties: {} }] }] } };

async function errorOf(p: Promise<unknown>): Promise<RestError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RestError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('service bus emulator: the administration API', () => {
  let dir: string;
  let emu: ServiceBusEmulator;
  let admin: ServiceBusAdministrationClient;
  let client: ServiceBusClient;

  async function start(): Promise<void> {
    emu = await startServiceBus({ port: 0, config: CONFIG, dataDir: dir });
    admin = new ServiceBusAdministrationClient(emu.connectionString, {
      tlsOptions: { ca: emu.caCertificate },
      retryOptions: { maxRetries: 0 },
    });
    client = new ServiceBusClient(emu.connectionString, { retryOptions: { maxRetries: 1, retryDelayInMs: 50, timeoutInMs: 10_000 } });
  }

  async function stop(): Promise<void> {
    await client.close();
    await emu.close();
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-bus-admin-'));
    await start();
  });
  afterAll(async () => {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates, reads, updates and lists queues with the settings given, and refuses what the service refuses', async () => {
    const created = await admin.createQueue('made', { lockDuration: 'PT45S', defaultMessageTimeToLive: 'P101D', maxDeliveryCount: 4 });
    expect(created).toMatchObject({
      name: 'made',
      lockDuration: 'PT45S',
      defaultMessageTimeToLive: 'P101D',
      maxDeliveryCount: 4,
      duplicateDetectionHistoryTimeWindow: 'PT10M',
      autoDeleteOnIdle: 'P10675199DT2H48M5.4775807S',
      status: 'Active',
      requiresSession: false,
      maxSizeInMegabytes: 1024,
    });
    const updated = await admin.updateQueue({ ...created, maxDeliveryCount: 7, userMetadata: 'kept' });
    expect(updated).toMatchObject({ maxDeliveryCount: 7, userMetadata: 'kept', lockDuration: 'PT45S' });
    expect((await admin.getQueue('made')).maxDeliveryCount).toBe(7);
    const rule = {
      claimType: 'SharedAccessKey',
      keyName: 'listener',
      accessRights: ['Listen' as const],
      primaryKey: 'a2V5',
      secondaryKey: 'b3RoZXI=',
    };
    const keyed = await admin.createQueue('keyed', { authorizationRules: [rule], enablePartitioning: true });
    expect(keyed.authorizationRules).toEqual([rule]);
    expect(keyed.maxSizeInMegabytes).toBe(16 * 1024); // a partitioned entity reports its 16 partitions' size, as the service
    await admin.deleteQueue('keyed');
    expect(await admin.queueExists('from-config')).toBe(true);

    const pages = [];
    for await (const page of admin.listQueues().byPage({ maxPageSize: 1 })) pages.push(page.map((q) => q.name));
    expect(pages).toEqual([['from-config'], ['made']]);

    expect((await errorOf(admin.createQueue('made'))).code).toBe('MessageEntityAlreadyExistsError');
    expect((await errorOf(admin.getQueue('missing'))).code).toBe('MessageEntityNotFoundError');
    expect((await errorOf(admin.deleteQueue('missing'))).statusCode).toBe(404);
    const tooLong = await errorOf(admin.createQueue('bad', { lockDuration: 'PT10M' }));
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.message).toContain('LockDuration must be between 5 seconds and 5 minutes');
  });

  it('reports runtime counts, and delivers messages of a queue whose default time to live is 101 days', async () => {
    const sender = client.createSender('made');
    await sender.sendMessages([{ body: 'one' }, { body: 'two' }]);
    await sender.scheduleMessages({ body: 'later' }, new Date(Date.now() + 3_600_000));
    await sender.close();
    const runtime = await waitFor(async () => {
      const r = await admin.getQueueRuntimeProperties('made');
      return r.activeMessageCount === 2 && r;
    });
    expect(runtime).toMatchObject({ scheduledMessageCount: 1, deadLetterMessageCount: 0, totalMessageCount: 3 });

    const receiver = client.createReceiver('made');
    const first = await waitFor(async () => (await receiver.receiveMessages(1, { maxWaitTimeInMs: 500 }))[0]);
    expect(first.body).toBe('one');
    await receiver.deadLetterMessage(first, { deadLetterReason: 'test', deadLetterErrorDescription: 'counted' });
    await receiver.close();
    await waitFor(async () => (await admin.getQueueRuntimeProperties('made')).deadLetterMessageCount === 1);
  });

  it('creates topics, subscriptions and rules, and recreates a subscription without the rules of before', async () => {
    await admin.createTopic('events');
    await admin.createSubscription('events', 'audit', {
      defaultRuleOptions: { name: 'only-red', filter: { sqlExpression: "color = 'red'" } },
    });
    await admin.createRule('events', 'audit', 'blue', { correlationId: 'c1', applicationProperties: { color: 'blue' } });
    const rules = [];
    for await (const r of admin.listRules('events', 'audit')) rules.push(r);
    expect(rules.map((r) => r.name)).toEqual(['only-red', 'blue']);
    expect(rules[1].filter).toMatchObject({ correlationId: 'c1', applicationProperties: { color: 'blue' } });
    expect((await admin.getRule('events', 'audit', 'only-red')).filter).toMatchObject({ sqlExpression: "color = 'red'" });

    const sender = client.createSender('events');
    await sender.sendMessages([
      { body: 'red', applicationProperties: { color: 'red' } },
      { body: 'green', applicationProperties: { color: 'green' } },
    ]);
    await waitFor(async () => (await admin.getSubscriptionRuntimeProperties('events', 'audit')).activeMessageCount === 1);
    expect((await admin.getTopicRuntimeProperties('events')).subscriptionCount).toBe(1);

    // sqlParameters are substituted for their @names, as the service does
    await admin.createSubscription('events', 'by-parameter', {
      defaultRuleOptions: { name: 'green', filter: { sqlExpression: 'color = @wanted', sqlParameters: { '@wanted': 'green' } } },
    });
    expect((await admin.getRule('events', 'by-parameter', 'green')).filter).toMatchObject({ sqlParameters: { '@wanted': 'green' } });
    await sender.sendMessages([
      { body: 'red', applicationProperties: { color: 'red' } },
      { body: 'green', applicationProperties: { color: 'green' } },
    ]);
    await waitFor(async () => (await admin.getSubscriptionRuntimeProperties('events', 'by-parameter')).activeMessageCount === 1);
    await admin.deleteSubscription('events', 'by-parameter');

    await admin.deleteSubscription('events', 'audit');
    await admin.createSubscription('events', 'audit');
    const fresh = [];
    for await (const r of admin.listRules('events', 'audit')) fresh.push(r.name);
    expect(fresh).toEqual(['$Default']);
    expect((await admin.getSubscriptionRuntimeProperties('events', 'audit')).activeMessageCount).toBe(0);
    await sender.sendMessages({ body: 'any' });
    await sender.close();
    await waitFor(async () => (await admin.getSubscriptionRuntimeProperties('events', 'audit')).activeMessageCount === 1);
  });

  it('forwards to the entity ForwardTo names', async () => {
    await admin.createQueue('forward-target');
    const source = await admin.createQueue('forward-source', { forwardTo: 'forward-target' });
    expect(source.forwardTo).toMatch(/^sb:\/\/.+\/forward-target$/);
    const sender = client.createSender('forward-source');
    await sender.sendMessages({ body: 'passed on' });
    await sender.close();
    const receiver = client.createReceiver('forward-target', { receiveMode: 'receiveAndDelete' });
    const m = await waitFor(async () => (await receiver.receiveMessages(1, { maxWaitTimeInMs: 500 }))[0]);
    await receiver.close();
    expect(m.body).toBe('passed on');
  });

  it('applies an entity Status: SendDisabled refuses sends, ReceiveDisabled receivers, Active takes both again', async () => {
    const queue = await admin.createQueue('switched', { status: 'SendDisabled' });
    const sender = client.createSender('switched');
    const refused = await sender.sendMessages({ body: 'no' }).catch((e: unknown) => e);
    expect(isServiceBusError(refused) && refused.code).toBe('MessagingEntityDisabled');
    await admin.updateQueue({ ...queue, status: 'ReceiveDisabled' });
    await sender.sendMessages({ body: 'yes' });
    const receiver = client.createReceiver('switched');
    const notReceived = await receiver.receiveMessages(1, { maxWaitTimeInMs: 500 }).catch((e: unknown) => e);
    expect(isServiceBusError(notReceived) && notReceived.code).toBe('MessagingEntityDisabled');
    await receiver.close();
    await admin.updateQueue({ ...queue, status: 'Active' });
    const again = client.createReceiver('switched', { receiveMode: 'receiveAndDelete' });
    const m = await waitFor(async () => (await again.receiveMessages(1, { maxWaitTimeInMs: 500 }))[0]);
    expect(m.body).toBe('yes');
    await again.close();
    await sender.close();
    await admin.deleteQueue('switched');
  });

  /** A raw HTTPS call, as a tool other than the SDK would make it. */
  function call(method: string, urlPath: string, body?: string, authorization?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: emu.port,
          path: urlPath,
          method,
          ca: emu.caCertificate,
          headers: authorization ? { authorization } : {},
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('answers bad requests with an error body shaped as the service does, and keeps serving', async () => {
    const noAuth = await call('GET', '/made?api-version=2021-05');
    expect(noAuth.status).toBe(401);
    expect(noAuth.body).toMatch(/<Error><Code>401<\/Code><Detail>MissingToken: .*TrackingId:/);
    // a Bearer token that is not a JWT is refused the same way, before anything is parsed
    expect((await call('PUT', '/x?api-version=2021-05', '<entry', 'Bearer not-a-token')).status).toBe(401);
    const forged = await call('GET', '/made?api-version=2021-05', undefined, 'SharedAccessSignature sr=x&sig=y&se=1&skn=z');
    expect(forged.status).toBe(401);

    /** Signed as the SDK signs: HMAC-SHA256 of the encoded, lower-cased request URL and the expiry. */
    const signed = (urlPath: string): string => {
      const sr = encodeURIComponent(`https://127.0.0.1:${emu.port}${urlPath}`.toLowerCase()).toLowerCase();
      const se = Math.round(Date.now() / 1000) + 300;
      const sig = encodeURIComponent(createHmac('sha256', 'SAS_KEY_VALUE').update(`${sr}\n${se}`).digest('base64'));
      return `SharedAccessSignature sig=${sig}&se=${se}&skn=RootManageSharedAccessKey&sr=${sr}`;
    };
    const put = (urlPath: string, body: string): Promise<{ status: number; body: string }> => call('PUT', urlPath, body, signed(urlPath));
    const entry = (inner: string): string =>
      `<entry xmlns="http://www.w3.org/2005/Atom"><content type="application/xml">${inner}</content></entry>`;
    const cases: [string, string, number, RegExp][] = [
      ['/broken?api-version=2021-05', '<entry><content>', 400, /not well-formed XML|must be an ATOM entry/],
      [
        '/broken?api-version=2021-05',
        entry('<QueueDescription><Colour>red</Colour></QueueDescription>'),
        400,
        /Colour is not a property of a queue/,
      ],
      [
        '/broken?api-version=2021-05',
        entry('<QueueDescription><MaxDeliveryCount>many</MaxDeliveryCount></QueueDescription>'),
        400,
        /must be an integer/,
      ],
      [
        '/broken?api-version=2021-05',
        entry('<QueueDescription><LockDuration>soon</LockDuration></QueueDescription>'),
        400,
        /not an ISO 8601 duration/,
      ],
      ['/broken?api-version=2021-05', entry('<SubscriptionDescription/>'), 400, /does not fit this address/],
      ['/a/b/c?api-version=2021-05', entry('<QueueDescription/>'), 400, /not part of the administration API/],
      ['/big?api-version=2021-05', 'x'.repeat(1024 * 1024 + 1), 413, /larger than/],
    ];
    for (const [urlPath, body, status, detail] of cases) {
      const r = await put(urlPath, body);
      expect({ urlPath, status: r.status }).toEqual({ urlPath, status });
      expect(r.body).toMatch(new RegExp(`<Error><Code>${status}</Code><Detail>`));
      expect(r.body).toMatch(detail);
    }
    const badPage = await call(
      'GET',
      '/$Resources/Queues?api-version=2021-05&$top=-1',
      undefined,
      signed('/$Resources/Queues?api-version=2021-05&$top=-1'),
    );
    expect(badPage.status).toBe(400);
    expect(await admin.queueExists('broken')).toBe(false);
    expect(await admin.queueExists('made')).toBe(true);
  });

  it('answers the namespace properties, refuses a wrong key, and keeps what it made across a restart', async () => {
    expect(await admin.getNamespaceProperties()).toMatchObject({ name: 'sbemulatorns', messagingSku: 'Standard' });
    const wrong = new ServiceBusAdministrationClient(emu.connectionString.replace(/SharedAccessKey=[^;]+/, 'SharedAccessKey=wrong'), {
      tlsOptions: { ca: emu.caCertificate },
      retryOptions: { maxRetries: 0 },
    });
    expect((await errorOf(wrong.getQueue('made'))).code).toBe('UnauthorizedRequestError');

    await admin.deleteQueue('from-config');
    await stop();
    await start();
    expect(await admin.queueExists('from-config')).toBe(false);
    expect(await admin.getQueue('made')).toMatchObject({ maxDeliveryCount: 7, userMetadata: 'kept', defaultMessageTimeToLive: 'P101D' });
    expect((await admin.getQueueRuntimeProperties('made')).activeMessageCount).toBe(1);
    expect((await admin.getSubscription('events', 'audit')).topicName).toBe('events');
    const rules = [];
    for await (const r of admin.listRules('events', 'audit')) rules.push(r.name);
    expect(rules).toEqual(['$Default']);
  });
});

describe('service bus emulator: the administration API with Entra ID', () => {
  const issuer = 'https://login.example.test/tenant/v2.0';
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk: JsonWebKey = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256' };
  const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
  /** A token as Entra ID issues it for Service Bus, signed with the key the stand-in trusts. */
  const credentialOf = (oid: string): TokenCredential => ({
    getToken: () => {
      const now = Math.floor(Date.now() / 1000);
      const body = `${b64({ alg: 'RS256', kid: 'k1', typ: 'JWT' })}.${b64({ iss: issuer, aud: 'https://servicebus.azure.net', oid, nbf: now, exp: now + 3600 })}`;
      const token = `${body}.${sign('sha256', Buffer.from(body), privateKey).toString('base64url')}`;
      return Promise.resolve({ token, expiresOnTimestamp: (now + 3600) * 1000 });
    },
  });
  let emu: ServiceBusEmulator;
  beforeAll(async () => {
    emu = await startServiceBus({
      port: 0,
      disableLocalAuth: true,
      entraId: {
        jwks: { keys: [jwk] },
        issuers: [issuer],
        roleAssignments: { owner: ['Azure Service Bus Data Owner'], sender: ['Azure Service Bus Data Sender'] },
      },
    });
  });
  afterAll(() => emu.close());

  const adminAs = (oid: string): ServiceBusAdministrationClient =>
    new ServiceBusAdministrationClient(`127.0.0.1:${emu.port}`, credentialOf(oid), {
      tlsOptions: { ca: emu.caCertificate },
      retryOptions: { maxRetries: 0 },
    });

  it('lets a Data Owner manage entities, refuses a Data Sender, and refuses SAS when local auth is disabled', async () => {
    expect(await adminAs('owner').createQueue('by-owner')).toMatchObject({ name: 'by-owner' });
    const sender = await errorOf(adminAs('sender').getQueue('by-owner'));
    expect(sender.code).toBe('UnauthorizedRequestError');
    expect(sender.message).toContain("'Manage' claim(s) are required");
    const sas = new ServiceBusAdministrationClient(emu.connectionString, {
      tlsOptions: { ca: emu.caCertificate },
      retryOptions: { maxRetries: 0 },
    });
    const refused = await errorOf(sas.getQueue('by-owner'));
    expect(refused.code).toBe('UnauthorizedRequestError');
    expect(refused.message).toContain('LocalAuthDisabled');
  });
});

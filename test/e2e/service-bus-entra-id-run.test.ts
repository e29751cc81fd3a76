import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID, type JsonWebKey } from 'node:crypto';
import { ManagedIdentityCredential } from '@azure/identity';
import { ServiceBusClient } from '@azure/service-bus';
import { startTokenService, type TokenService } from '@opstream/token-service';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { runCli, spawnCli, type CliProcess } from '../helpers/cli';
import { startHarness, type Harness } from '../helpers/opstream-harness';
import { trustCertificate } from '../helpers/trust-certificate';
import { waitFor } from '../helpers/wait-for';
import {
  EVENTS_CONFIG,
  EVENTS_TOPIC,
  collect,
  published,
  statusesOf,
  type Collector,
} from '../integration/service-bus-events/operation-events-helpers';

const NAMESPACE = 'opstream-test.servicebus.windows.net';
const SENDER = 'Azure Service Bus Data Sender';
const RECEIVER = 'Azure Service Bus Data Receiver';
const CS_TOPIC = 'clusters-service-events';

/**
 * `opstream run` (the built CLI, its own process) reaching Service Bus as production does: a namespace
 * with local (SAS) auth disabled, over AMQPS, with Entra ID only — serviceBus.namespace, serviceBus.endpoint
 * (the stand-in's TLS port), the managed identity of the local token service, the stand-in's certificate
 * trusted through NODE_EXTRA_CA_CERTS. No connection string anywhere. Cosmos DB is reached with its key
 * (its own Entra ID path is test/e2e/entra-id-run.test.ts).
 */
describe('opstream run with Service Bus over Entra ID (namespace + endpoint, no connection string)', () => {
  let ts: TokenService;
  let bus: ServiceBusEmulator;
  let h: Harness;
  let untrust: () => void;
  let caFile: string;
  let events: Collector;
  let observer: ServiceBusClient;
  /** Sender and Receiver: what opstream needs. */
  let app: { clientId: string; objectId: string };
  /** Receiver only: cannot publish Operation events until the Sender role is assigned. */
  let listenOnly: { clientId: string; objectId: string };
  const saved = { IDENTITY_ENDPOINT: process.env.IDENTITY_ENDPOINT, IDENTITY_HEADER: process.env.IDENTITY_HEADER };

  beforeAll(async () => {
    ts = await startTokenService();
    app = ts.addPrincipal();
    listenOnly = ts.addPrincipal();
    const owner = ts.addPrincipal();
    const jwks = (await (await fetch(ts.jwksUrl)).json()) as { keys: JsonWebKey[] };
    bus = await startServiceBus({
      port: 0,
      tls: true,
      tlsPort: 0,
      disableLocalAuth: true,
      config: EVENTS_CONFIG,
      entraId: {
        jwks,
        issuers: [ts.issuer],
        roleAssignments: {
          [app.objectId]: [SENDER, RECEIVER],
          [listenOnly.objectId]: [RECEIVER],
          [owner.objectId]: ['Azure Service Bus Data Owner'],
        },
      },
    });
    caFile = join(mkdtempSync(join(tmpdir(), 'opstream-sb-tls-')), 'service-bus.pem');
    writeFileSync(caFile, bus.caCertificate ?? '');
    untrust = trustCertificate(bus.caCertificate ?? '');
    Object.assign(process.env, ts.env());
    // The test reads the topic as opstream does: Entra ID over TLS (SAS is refused by this namespace).
    observer = new ServiceBusClient(NAMESPACE, new ManagedIdentityCredential({ clientId: owner.clientId }), {
      customEndpointAddress: bus.tlsEndpoint,
      retryOptions: { maxRetries: 1, timeoutInMs: 5000 },
    });
    events = collect(observer);
    // The harness's own instance only creates the containers; the child processes do the work.
    h = await startHarness({ csDurations: { installingMs: 300 } });
    await (h.instances.shift() as { stop(): Promise<void> }).stop();
  });
  afterAll(async () => {
    await events?.close();
    untrust?.();
    await h?.close();
    await bus?.close();
    await ts?.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  const env = (clientId: string, extra: Record<string, string> = {}): Record<string, string> => ({
    OPSTREAM_COSMOS_ENDPOINT: h.cosmos.emu.endpoint,
    OPSTREAM_COSMOS_KEY: h.cosmos.emu.key,
    OPSTREAM_COSMOS_DATABASE: h.databaseId,
    OPSTREAM_CLUSTERS_SERVICE_URL: h.cs.url,
    // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
    OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
    OPSTREAM_SERVICE_BUS_NAMESPACE: NAMESPACE,
    OPSTREAM_SERVICE_BUS_ENDPOINT: bus.tlsEndpoint ?? '',
    OPSTREAM_CHANGEFEED_START_FROM: 'beginning',
    OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
    OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
    OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '50',
    OPSTREAM_FOLLOW_MAX_DELAY_MS: '400',
    OPSTREAM_OPS_ADDR: '127.0.0.1:0',
    // Warnings on stderr: the test reads what the operator would.
    OPSTREAM_LOG_SILENT: '0',
    OPSTREAM_LOG_LEVEL: 'warn',
    OPSTREAM_LOG_FORMAT: 'json',
    NODE_EXTRA_CA_CERTS: caFile,
    // Only the managed identity: no IMDS probe, no developer tools on this machine.
    AZURE_TOKEN_CREDENTIALS: 'ManagedIdentityCredential',
    AZURE_CLIENT_ID: clientId,
    ...ts.env(),
    ...extra,
  });

  async function running(p: CliProcess): Promise<string> {
    const line = await p.waitForStderr(
      (l) => / running; .*Ctrl-C stops("|$)/.test(l),
      60_000,
      'that opstream runs (a JSON record: its log is JSON)',
    );
    return /ops server (http:\/\/\S+?);/.exec(line)?.[1] ?? '';
  }

  async function stop(p: CliProcess): Promise<number | null> {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
    return (await p.exited).code;
  }

  test('config check names Entra ID for the namespace and the endpoint, and shows no secret', async () => {
    const check = await runCli(['config', 'check', '--for', 'run'], env(app.clientId));
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(
      `Service Bus auth: Entra ID for namespace ${NAMESPACE} through ${bus.tlsEndpoint} (serviceBus.namespace is set: Entra ID through DefaultAzureCredential (`,
    );
    expect(check.stdout).toMatch(/serviceBus\.namespace\s+opstream-test\.servicebus\.windows\.net\s+environment/);
  });

  test('publishes every Operation transition and receives Clusters Service events, over TLS with its managed identity', async () => {
    const run = spawnCli(['run'], env(app.clientId));
    try {
      const opsUrl = await running(run);
      const sub = randomUUID();
      await h.frontend.registerSubscription(sub, randomUUID());
      const op = await h.frontend.createCluster(sub, 'rg-sb', 'c1');
      expect(await h.terminal(op, 60_000)).toBe('Succeeded');
      await waitFor(() => statusesOf(published(events.messages), op.operationId).includes('Succeeded'), {
        timeoutMs: 60_000,
        describe: () =>
          `the Succeeded event of ${op.operationId} on ${EVENTS_TOPIC} (have ${events.messages.length}; stderr: ${run.stderr().slice(-1500)})`,
      });
      expect(statusesOf(published(events.messages), op.operationId)).toEqual(
        ['Accepted', 'Provisioning', 'Succeeded'].filter((s) => statusesOf(published(events.messages), op.operationId).includes(s)),
      );

      // A Clusters Service event on the topic opstream listens to (sent by the test as Data Owner): received and counted.
      await observer.createSender(CS_TOPIC).sendMessages({
        body: {
          kind: 'Cluster',
          id: 'unknown',
          href: '/api/clusters_mgmt/v1/clusters/unknown',
          state: 'ready',
          time: new Date().toISOString(),
        },
        contentType: 'application/json',
      });
      await waitFor(
        async () => {
          const metrics = await (await fetch(`${opsUrl}/metrics`)).text();
          return /opstream_service_bus_received_total\{entity="clusters-service-events\/opstream",outcome="ignored"\} 1\b/.test(metrics);
        },
        { timeoutMs: 30_000, describe: () => `the CS event to be received (stderr: ${run.stderr().slice(-1500)})` },
      );
      expect(run.stderr()).not.toMatch(/UnauthorizedAccess|LocalAuthDisabled/);
    } finally {
      expect(await stop(run)).toBe(0);
    }
  });

  test('an identity without the Sender role: the operations go on, the warning names the role, and once it is assigned every transition is published', async () => {
    const run = spawnCli(['run'], env(listenOnly.clientId));
    try {
      await running(run);
      const sub = randomUUID();
      await h.frontend.registerSubscription(sub, randomUUID());
      const op = await h.frontend.createCluster(sub, 'rg-sb', 'no-role');
      // The pipeline never waits on Service Bus.
      expect(await h.terminal(op, 60_000)).toBe('Succeeded');
      const warning = await run.waitForStderr(
        (l) => l.includes(`assign it the ${SENDER} role on namespace ${NAMESPACE}`),
        30_000,
        'the warning naming the missing role',
      );
      expect(warning).toContain(`client id ${listenOnly.clientId}`);
      expect(warning).toContain(`the Send right on ${EVENTS_TOPIC}`);
      expect(statusesOf(published(events.messages), op.operationId)).toEqual([]);

      bus.assignRoles(listenOnly.objectId, [SENDER, RECEIVER]);
      // Held, not skipped: the publisher's checkpoint waited for Service Bus, so the retry sends the whole history.
      await waitFor(() => statusesOf(published(events.messages), op.operationId).includes('Succeeded'), {
        timeoutMs: 60_000,
        describe: () => `the events of ${op.operationId} after the role assignment (stderr: ${run.stderr().slice(-1500)})`,
      });
      const got = statusesOf(published(events.messages), op.operationId);
      expect(got[0]).toBe('Accepted');
      expect(got[got.length - 1]).toBe('Succeeded');
      expect(new Set(got).size).toBe(got.length);
    } finally {
      expect(await stop(run)).toBe(0);
    }
  }, 150_000);

  test('without an identity, start-up stops with one line naming the Service Bus fix (exit 78)', async () => {
    const result = await runCli(['run'], {
      ...env(app.clientId, { AZURE_TOKEN_CREDENTIALS: 'WorkloadIdentityCredential', OPSTREAM_LOG_SILENT: '1' }),
      IDENTITY_ENDPOINT: '',
      IDENTITY_HEADER: '',
    });
    expect(result.code).toBe(78);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^opstream: no Azure identity could get a token for Service Bus namespace opstream-test\.servicebus\.windows\.net .*AZURE_FEDERATED_TOKEN_FILE.*OPSTREAM_SERVICE_BUS_CONNECTION_STRING \(--service-bus-connection-string\) instead of OPSTREAM_SERVICE_BUS_NAMESPACE$/,
    );
  });
});

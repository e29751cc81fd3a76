import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { CosmosClient } from '@azure/cosmos';
import { ManagedIdentityCredential } from '@azure/identity';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { FrontendSimulator, startNotificationReceiver, type NotificationReceiver } from '@opstream/frontend-simulator';
import { startTokenService, type TokenService } from '@opstream/token-service';
import { ensureContainers } from '../../src/cosmos';
import { runCli, spawnCli } from '../helpers/cli';
import { emulatorClientOptions, startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { FAST_CS_DURATIONS } from '../helpers/test-config';
import { uniqueName } from '../helpers/wait-for';

/**
 * `opstream run` against an account that takes Entra ID only (local auth disabled, containers made
 * beforehand, as Bicep does) and advertises a regional write host: no key anywhere, the identity from
 * the local token service through DefaultAzureCredential's managed identity, HTTPS trusted through
 * cosmos.caFile. A cluster goes through its lifecycle; `opstream lag` finds the leases under the
 * configured host's prefix; a missing identity and a refused key each stop start-up with one line.
 */
describe('opstream run with Entra ID only', () => {
  let ts: TokenService;
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;
  let caFile: string;
  const databaseId = uniqueName('aad');
  const saved = { IDENTITY_ENDPOINT: process.env.IDENTITY_ENDPOINT, IDENTITY_HEADER: process.env.IDENTITY_HEADER };
  let frontendClient: CosmosClient;

  beforeAll(async () => {
    ts = await startTokenService();
    cosmos = await startTestCosmos({
      tls: true,
      entraId: { openIdConfigurationUrl: ts.openIdConfigurationUrl },
      advertisedHost: 'localhost',
    });
    // The containers are made elsewhere (Bicep in production), before key auth is turned off.
    await ensureContainers(cosmos.client, databaseId, { create: true });
    await admin('PUT', 'local-auth', { disabled: true });
    caFile = join(mkdtempSync(join(tmpdir(), 'opstream-aad-')), 'emulator.pem');
    writeFileSync(caFile, cosmos.emu.caCertificate ?? '');
    cs = await startClustersServiceSimulator({ port: 0, durations: FAST_CS_DURATIONS });
    receiver = await startNotificationReceiver();
    Object.assign(process.env, ts.env());
    const { key: _key, ...options } = emulatorClientOptions(cosmos.emu);
    frontendClient = new CosmosClient({
      ...options,
      aadCredentials: new ManagedIdentityCredential({ clientId: ts.addPrincipal().clientId }),
    });
  });
  afterAll(async () => {
    frontendClient?.dispose();
    await receiver?.close();
    await cs?.close();
    await cosmos?.close();
    await ts?.close();
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  });

  function admin(method: string, what: string, body: unknown): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${cosmos.emu.endpoint}_admin/${what}`,
        { method, ca: cosmos.emu.caCertificate, headers: { authorization: `Bearer ${cosmos.emu.key}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }

  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
    OPSTREAM_COSMOS_CA_FILE: caFile,
    OPSTREAM_COSMOS_DATABASE: databaseId,
    OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
    // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
    OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
    OPSTREAM_OPS_ADDR: '127.0.0.1:0',
    OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
    OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
    OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '50',
    OPSTREAM_FOLLOW_MAX_DELAY_MS: '400',
    // Only the managed identity: no IMDS probe, no developer tools on this machine.
    AZURE_TOKEN_CREDENTIALS: 'ManagedIdentityCredential',
    ...ts.env(),
    ...extra,
  });

  test('with no key, the processor completes a cluster create, and opstream lag finds its leases under the configured host', async () => {
    const check = await runCli(['config', 'check', '--for', 'run'], env());
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(
      'Cosmos DB auth: Entra ID (neither cosmos.key, cosmos.keyFile nor cosmos.connectionString is set: Entra ID through DefaultAzureCredential (AZURE_TOKEN_CREDENTIALS=ManagedIdentityCredential, managed identity endpoint (IDENTITY_ENDPOINT)))',
    );

    const run = spawnCli(['run'], env());
    try {
      await run.waitForStderr((line) => / running; .*Ctrl-C stops$/.test(line), 60_000, 'that opstream runs');
      const frontend = new FrontendSimulator({ database: frontendClient.database(databaseId), notificationBaseUrl: receiver.url });
      const sub = randomUUID();
      await frontend.registerSubscription(sub, randomUUID());
      const op = await frontend.createCluster(sub, 'rg-aad', 'c1');
      const notified = await receiver.waitForNotification(op.operationId, 60_000);
      expect((notified.body as { status: string }).status).toBe('Succeeded');

      const lag = await runCli(['lag', '--json'], env());
      expect(lag.code).toBe(0);
      const report = JSON.parse(lag.stdout) as { total: number; unknown: number; leases: Array<{ lag: number | null }> };
      expect(report.leases).toHaveLength(4);
      expect(report.unknown).toBe(0);
      // The SDK wrote to the advertised host (localhost), yet the ids carry the configured one, as KEDA and .NET build them.
      const { resources } = await frontendClient
        .database(databaseId)
        .container('Leases')
        .items.query<{ id: string }>('SELECT c.id FROM c WHERE IS_DEFINED(c.LeaseToken)')
        .fetchAll();
      expect(resources).toHaveLength(4);
      for (const { id } of resources) expect(id.startsWith('opstream127.0.0.1_')).toBe(true);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGTERM');
    }
    expect((await run.exited).code).toBe(0);
  });

  test('without an identity, start-up stops with one line naming the fix (exit 78)', async () => {
    const result = await runCli(['run'], {
      ...env({ AZURE_TOKEN_CREDENTIALS: 'WorkloadIdentityCredential' }),
      IDENTITY_ENDPOINT: '',
      IDENTITY_HEADER: '',
    });
    expect(result.code).toBe(78);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^opstream: no Azure identity could get a token for Cosmos DB at https:\/\/127\.0\.0\.1:\d+\/ .*AZURE_FEDERATED_TOKEN_FILE.*OPSTREAM_COSMOS_KEY/,
    );
  });

  test('a key, on an account with local auth disabled, is refused with one line (exit 78)', async () => {
    const result = await runCli(['run'], env({ OPSTREAM_COSMOS_KEY: cosmos.emu.key }));
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(
      /^opstream: Cosmos DB at \S+ refused the key \(HTTP 401\): .*local auth disabled takes Entra ID only \(unset the key\)\n$/,
    );
  });

  test('--cosmos-create-containers under Entra ID is refused before anything is created', async () => {
    const result = await runCli(['run', '--cosmos-create-containers'], env({ OPSTREAM_COSMOS_DATABASE: uniqueName('none') }));
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('setting cosmos.createContainers needs key authentication');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { FrontendSimulator, startNotificationReceiver, type NotificationReceiver } from '@opstream/frontend-simulator';
import { defaultProcessors } from '../../processors/registry';
import { startOpstream, type Opstream } from '../../src/app/opstream-app';
import { createLogger } from '../../src/logging/logger';
import { runCli } from '../helpers/cli';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { FAST_CS_DURATIONS, testConfig } from '../helpers/test-config';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * The containers under names of the operator's choosing, and the leases in another account, as the
 * Functions trigger's containerName / leaseContainerName / leaseConnection allow: a second emulator
 * on another loopback port is the lease account (its key read from a file, as a mounted secret is).
 * Operations complete, the leases are written there and only there, and `opstream leases` / `lag`
 * read them where the same settings say.
 */
const NAMES = {
  'cosmos.operationsContainer': 'AsyncOperations',
  'cosmos.resourcesContainer': 'ResourceDocs',
  'cosmos.subscriptionsContainer': 'Subs',
  'cosmos.locksContainer': 'SubscriptionLocks',
  'cosmos.deadLettersContainer': 'Poison',
};

describe('a lease container in a second account', () => {
  let main: TestCosmos;
  let leaseAccount: TestCosmos;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;
  let app: Opstream;
  let frontend: FrontendSimulator;
  let dir: string;
  const databaseId = uniqueName('main');
  const leaseDatabaseId = uniqueName('leasedb');

  beforeAll(async () => {
    [main, leaseAccount] = await Promise.all([startTestCosmos(), startTestCosmos()]);
    cs = await startClustersServiceSimulator({ port: 0, durations: FAST_CS_DURATIONS });
    receiver = await startNotificationReceiver();
    dir = mkdtempSync(join(tmpdir(), 'opstream-lease-key-'));
    writeFileSync(join(dir, 'key'), `${leaseAccount.emu.key}\n`);
    const config = testConfig(
      { cosmosEndpoint: main.emu.endpoint, cosmosKey: main.emu.key, databaseId, csUrl: cs.url },
      {
        ...NAMES,
        'leases.endpoint': leaseAccount.emu.endpoint,
        'leases.keyFile': join(dir, 'key'),
        'leases.database': leaseDatabaseId,
        'leases.container': 'ProcessorLeases',
        'changefeed.instanceName': 'lease-account-test',
      },
    );
    app = await startOpstream(config, {
      processors: defaultProcessors,
      logger: createLogger({ silent: process.env.OPSTREAM_TEST_LOGS !== '1', level: 'debug' }),
      opsServer: false,
    });
    frontend = new FrontendSimulator({
      database: main.client.database(databaseId),
      notificationBaseUrl: receiver.url,
      containers: {
        operations: NAMES['cosmos.operationsContainer'],
        resources: NAMES['cosmos.resourcesContainer'],
        subscriptions: NAMES['cosmos.subscriptionsContainer'],
        locks: NAMES['cosmos.locksContainer'],
      },
    });
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await cs?.close();
    await Promise.all([main?.close(), leaseAccount?.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('completes operations with every container under its configured name, and writes the leases in the lease account only', async () => {
    const sub = crypto.randomUUID();
    await frontend.registerSubscription(sub, crypto.randomUUID());
    const ops = await Promise.all([frontend.createCluster(sub, 'rg', uniqueName('c')), frontend.createCluster(sub, 'rg', uniqueName('c'))]);
    for (const op of ops)
      expect(String(((await receiver.waitForNotification(op.operationId, 60_000)).body as { status: unknown }).status)).toBe('Succeeded');

    // The leases: in the second account's database, one per range of the main account's Operations container, owned by this instance.
    const leases = leaseAccount.client.database(leaseDatabaseId).container('ProcessorLeases');
    const owned = await waitFor(
      async () => {
        const { resources } = await leases.items
          .query<{ id: string; Owner?: string; ContinuationToken?: string | null }>('SELECT * FROM c WHERE IS_DEFINED(c.LeaseToken)')
          .fetchAll();
        return resources.length === 4 && resources.every((l) => l.Owner === 'lease-account-test') ? resources : undefined;
      },
      { timeoutMs: 30_000, describe: () => 'four leases owned by the instance in the lease account' },
    );
    expect(owned.some((l) => typeof l.ContinuationToken === 'string')).toBe(true);
    // Each lease id names the main account's host (the monitored container's), not the lease account's.
    for (const l of owned) expect(l.id.startsWith(`opstream${new URL(main.emu.endpoint).hostname}_`)).toBe(true);

    // The main account holds the five named containers and no lease container; the lease account only the lease database.
    const { resources: mainContainers } = await main.client.database(databaseId).containers.readAll().fetchAll();
    expect(mainContainers.map((c) => c.id).sort()).toEqual(Object.values(NAMES).sort());
    const { resources: leaseDatabases } = await leaseAccount.client.databases.readAll().fetchAll();
    expect(leaseDatabases.map((d) => d.id)).toEqual([leaseDatabaseId]);
    const { resources: leaseContainers } = await leaseAccount.client.database(leaseDatabaseId).containers.readAll().fetchAll();
    expect(leaseContainers.map((c) => c.id)).toEqual(['ProcessorLeases']);
  });

  it('opstream leases and lag read the leases where the same settings put them', async () => {
    const env = {
      OPSTREAM_COSMOS_ENDPOINT: main.emu.endpoint,
      OPSTREAM_COSMOS_KEY: main.emu.key,
      OPSTREAM_COSMOS_DATABASE: databaseId,
      OPSTREAM_COSMOS_OPERATIONS_CONTAINER: NAMES['cosmos.operationsContainer'],
      OPSTREAM_COSMOS_RESOURCES_CONTAINER: NAMES['cosmos.resourcesContainer'],
      OPSTREAM_COSMOS_SUBSCRIPTIONS_CONTAINER: NAMES['cosmos.subscriptionsContainer'],
      OPSTREAM_COSMOS_LOCKS_CONTAINER: NAMES['cosmos.locksContainer'],
      OPSTREAM_COSMOS_DEAD_LETTERS_CONTAINER: NAMES['cosmos.deadLettersContainer'],
      OPSTREAM_LEASES_ENDPOINT: leaseAccount.emu.endpoint,
      OPSTREAM_LEASES_KEY_FILE: join(dir, 'key'),
      OPSTREAM_LEASES_DATABASE: leaseDatabaseId,
      OPSTREAM_LEASES_CONTAINER: 'ProcessorLeases',
    };
    const leases = await runCli(['leases', '--json'], env);
    expect(leases.stderr).toBe('');
    expect(leases.code).toBe(0);
    const report = JSON.parse(leases.stdout) as { leases: Array<{ owner: string | null; lag: number | null }> };
    expect(report.leases).toHaveLength(4);
    for (const l of report.leases) expect(l).toMatchObject({ owner: 'lease-account-test', lag: expect.any(Number) });

    const lag = await runCli(['lag', '--json'], env);
    expect(lag.code).toBe(0);
    expect((JSON.parse(lag.stdout) as { leases: unknown[]; unknown: number }).leases).toHaveLength(4);

    // Without the lease settings the leases are looked for in the main account, where there are none.
    const elsewhere = await runCli(['leases'], {
      ...env,
      OPSTREAM_LEASES_ENDPOINT: '',
      OPSTREAM_LEASES_KEY_FILE: '',
      OPSTREAM_LEASES_DATABASE: '',
    });
    expect(elsewhere.code).toBe(78);
    expect(elsewhere.stderr).toContain(`container ${databaseId}/ProcessorLeases does not exist`);
  });
});

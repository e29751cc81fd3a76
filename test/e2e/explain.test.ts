import { randomUUID } from 'crypto';
import type { Database } from '@azure/cosmos';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import {
  FrontendSimulator,
  startNotificationReceiver,
  type NotificationReceiver,
  type WrittenOperation,
} from '@opstream/frontend-simulator';
import { defaultProcessors } from '../../processors/registry';
import { startOpstream, type Opstream } from '../../src/app/opstream-app';
import type { ExplainReport } from '../../src/inspect/explain/report';
import { createLogger } from '../../src/logging/logger';
import { validate } from '../../src/schemas/validator';
import { runCli } from '../helpers/cli';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { FAST_CS_DURATIONS, testConfig } from '../helpers/test-config';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * `opstream explain` end to end: a running instance (in this process, its ops server on a free
 * loopback port behind a token), the Clusters Service simulator, the Cosmos emulator, and the CLI
 * spawned as operators run it. Each situation is set up for real (a phase that does not end, CS
 * answering errors, a lock another holder keeps, a malformed document, an ended operation, a crashed
 * owner) and explain is asked until its first line says it.
 */
describe('opstream explain', () => {
  // Each situation spawns the CLI several times; on a loaded machine one spawn takes seconds.
  jest.setTimeout(180_000);
  const opsToken = `ops-${randomUUID()}`;
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;
  let app: Opstream | undefined;
  let database: Database;
  let frontend: FrontendSimulator;
  let env: Record<string, string>;
  let instance: string;
  const sub = randomUUID();

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    // Clusters named stuck-… stay installing; locked-… install for a few seconds, long enough to take their lock first.
    cs = await startClustersServiceSimulator({
      port: 0,
      durations: FAST_CS_DURATIONS,
      durationsFor: (t) =>
        t.clusterName.startsWith('stuck')
          ? { installingMs: 3_600_000 }
          : t.clusterName.startsWith('locked')
            ? { installingMs: 10_000 }
            : undefined,
    });
    receiver = await startNotificationReceiver();
    const databaseId = uniqueName('explain');
    instance = uniqueName('explained');
    const config = testConfig(
      { cosmosEndpoint: cosmos.emu.endpoint, cosmosKey: cosmos.emu.key, databaseId, csUrl: cs.url },
      { 'changefeed.instanceName': instance, 'ops.token': opsToken },
    );
    app = await startOpstream(config, {
      processors: defaultProcessors,
      logger: createLogger({ silent: process.env.OPSTREAM_TEST_LOGS !== '1', level: 'debug' }),
    });
    const running = app;
    await waitFor(
      async () => (await running.pipeline.processor.getCurrentState({ estimateLag: false })).leases.every((l) => l.ownedByThisInstance),
      {
        timeoutMs: 30_000,
        describe: () => 'the instance to hold every lease',
      },
    );
    database = cosmos.client.database(databaseId);
    frontend = new FrontendSimulator({ database, notificationBaseUrl: receiver.url });
    await frontend.registerSubscription(sub, randomUUID());
    env = {
      OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: databaseId,
      OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: '3000',
      OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: '500',
      OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
      OPSTREAM_OPS_TOKEN: opsToken,
      OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
    };
  });

  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await cs?.close();
    await cosmos?.close();
  });

  /** Runs `opstream explain <id> --json` until its diagnosis matches; every answer is a complete report whose owner part passed its schema. */
  async function explainUntil(id: string, diagnosis: RegExp, timeoutMs = 45_000): Promise<ExplainReport> {
    let last = '';
    return waitFor(
      async () => {
        const result = await runCli(['explain', id, '--json'], env);
        last = `exit ${result.code}: ${result.stdout.slice(0, 3000)} ${result.stderr}`;
        if (result.code !== 0) return undefined;
        const report = validate('explainReport', JSON.parse(result.stdout));
        return diagnosis.test(report.diagnosis) ? report : undefined;
      },
      { timeoutMs, intervalMs: 200, describe: () => `explain ${id} to say ${diagnosis}; last: ${last}` },
    );
  }

  const cluster = (prefix: string): Promise<WrittenOperation> => frontend.createCluster(sub, 'rg', uniqueName(prefix));

  it('a stuck Clusters Service phase: waiting on CS, for how long, next check, by whom; CS asked too', async () => {
    const op = await cluster('stuck');
    const report = await explainUntil(
      op.operationId,
      new RegExp(`^waiting on Clusters Service: cluster installing for \\d+ s; next check (in \\d+ s|now) by ${instance}$`),
    );
    expect(report.operation).toMatchObject({ id: op.operationId, request: 'Create', status: 'Provisioning' });
    expect(report.resource).toMatchObject({ activeOperationId: op.operationId, provisioningState: 'Provisioning' });
    expect(report.lease).toMatchObject({ owner: instance, expired: false, opsUrl: app?.opsUrl });
    expect(report.owner?.state).toMatchObject({
      instance,
      state: 'parked',
      reason: 'clusters-service',
      clustersService: { state: 'installing' },
    });
    expect(report.clustersService).toMatchObject({ kind: 'cluster', found: true, state: 'installing' });
    // Free, or held for a moment by the instance itself (its write-backs take it; explain's reads are not one snapshot).
    expect(report.lock?.held === false || report.lock?.owner === instance).toBe(true);
    // In words: the same first line, then the blocks.
    // (Asked again until it is parked: a follow check may be in hand at that instant.)
    const text = await waitFor(
      async () => {
        const result = await runCli(['explain', op.externalId], env);
        return result.code === 0 && /^waiting on Clusters Service: cluster installing for/.test(result.stdout) ? result.stdout : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, describe: () => 'explain in words to say it waits on Clusters Service' },
    );
    expect(text).toMatch(/\nClusters Service +cluster \/api\/\S+: installing/);
    expect(text).toMatch(/\nfeed range +lease \S+; owner /);
  });

  it('a backoff after Clusters Service errors: the error, how many in a row, the next attempt', async () => {
    const fault = cs.admin.addFault({ kind: 'error', endpoint: 'POST /clusters', status: 500 });
    try {
      const op = await cluster('failing');
      const report = await explainUntil(
        op.operationId,
        new RegExp(`^backing off after an error \\(\\d+ in a row\\): .*500.*; next attempt (in \\d+ s|now) by ${instance}$`),
      );
      expect(report.owner?.state).toMatchObject({ state: 'parked', reason: 'error', lastHandling: { result: 'retried' } });
      expect(report.owner?.state?.consecutiveErrors).toBeGreaterThanOrEqual(1);
    } finally {
      cs.admin.removeFault(fault.id);
    }
  });

  it('a lock another holder keeps: who holds it and until when, and that the owner waits for it', async () => {
    const op = await cluster('locked');
    const operations = database.container('Operations');
    await waitFor(async () => (await operations.item(op.operationId, sub).read<{ status: string }>()).resource?.status === 'Provisioning', {
      timeoutMs: 30_000,
      describe: () => 'the operation to be Provisioning',
    });
    // Held past the install's end: writing Succeeded needs it.
    // Taken as any holder takes it: created, retried while the instance holds it for one of its writes (409).
    await waitFor(
      async () => {
        await database
          .container('Locks')
          .items.create({ id: sub, owner: 'frontend-elsewhere', acquiredAt: new Date().toISOString(), ttl: 120 });
        return true;
      },
      { timeoutMs: 20_000, describe: () => 'the lock to be taken' },
    );
    try {
      const report = await explainUntil(
        op.operationId,
        new RegExp(
          `^waiting for the subscription lock \\(held by frontend-elsewhere, expires in (1 m( \\d+ s)?|\\d+ s)\\).*by ${instance}$`,
        ),
        90_000,
      );
      expect(report.lock).toMatchObject({ subscriptionId: sub, held: true, owner: 'frontend-elsewhere' });
      expect(['handling', 'parked']).toContain(report.owner?.state?.state);
    } finally {
      await database.container('Locks').item(sub, sub).delete();
    }
    await receiver.waitForNotification(op.operationId, 30_000);
  });

  it('a dead-lettered document: the reason and the failing field, in words', async () => {
    const id = randomUUID();
    const now = new Date().toISOString();
    await frontend.writeRawOperation({
      id,
      partitionKey: sub,
      request: 'Create',
      externalId: 'not-an-arm-resource-id',
      status: 'Accepted',
      startTime: now,
      lastTransitionTime: now,
      operationId: `/subscriptions/${sub}/providers/Microsoft.RedHatOpenShift/locations/eastus/hcpOperationStatuses/${id}`,
    });
    const report = await explainUntil(id, /^dead-lettered \(validation\): externalId is not an ARM resource id$/);
    expect(report.invalidOperation).toMatchObject({ id, field: 'externalId' });
    expect(report.deadLetters).toEqual([expect.objectContaining({ reason: 'validation' })]);
  });

  it('a terminal operation: its status, how long ago, when ARM was told', async () => {
    const op = await cluster('done');
    await receiver.waitForNotification(op.operationId, 30_000);
    const report = await explainUntil(op.operationId, /^Succeeded \d+ s ago; ARM told at \S+ after 1 attempt \(HTTP 200\)$/);
    expect(report.operation?.notification).toMatchObject({ state: 'sent', delivery: { state: 'delivered', attempts: 1, httpStatus: 200 } });
    expect(report.owner?.state?.state).toBe('absent');
  });

  it('an unknown id exits 66; a refused token is said, not fatal', async () => {
    const missing = await runCli(['explain', randomUUID()], env);
    expect(missing.code).toBe(66);
    expect(missing.stderr).toMatch(/^opstream: no operation \S+ in the Operations container, and no dead letter of it\n$/);
    const op = await cluster('stuck');
    await explainUntil(op.operationId, /^waiting on Clusters Service/);
    const refused = await runCli(['explain', op.operationId, '--json'], { ...env, OPSTREAM_OPS_TOKEN: `wrong-${randomUUID()}` });
    expect(refused.code).toBe(0);
    const report = JSON.parse(refused.stdout) as ExplainReport;
    expect(report.owner?.error).toMatch(/refused the token: give the instances' ops.token \(--ops-token, OPSTREAM_OPS_TOKEN\)/);
    expect(report.diagnosis).toMatch(
      new RegExp(
        `^owned by ${instance} \\(lease renewed \\d+ s ago\\); not known what it does, as it could not be asked from here \\(.*refused the token`,
      ),
    );
    expect(report.diagnosis).toContain(`ask ${instance} itself: reach port`);
  });

  it('an expired lease with no owner: no instance owns the range, since when', async () => {
    await (app as Opstream).stop();
    app = undefined;
    // The owner crashed 3 minutes ago: its leases still name it, unrenewed.
    const leases = database.container('Leases');
    const { resources } = await leases.items.query<Record<string, unknown>>('SELECT * FROM c WHERE c.version = 1').fetchAll();
    expect(resources.length).toBeGreaterThan(0);
    const crashedAt = new Date(Date.now() - 180_000).toISOString();
    for (const lease of resources) {
      const { _rid, _self, _etag, _attachments, _ts, ...doc } = lease;
      void [_rid, _self, _etag, _attachments, _ts];
      await leases
        .item(String(doc.id), String(doc.partitionKey ?? doc.id))
        .replace({ ...doc, Owner: 'crashed-instance', timestamp: crashedAt });
    }
    const op = await cluster('orphan');
    const report = await explainUntil(
      op.operationId,
      /^no instance owns range \S+ \(lease expired 3 m( \d+ s)? ago; last owner crashed-instance\)$/,
      20_000,
    );
    expect(report.lease).toMatchObject({ owner: 'crashed-instance', expired: true });
    expect(report.lease?.opsUrl).toBeUndefined(); // the URL in the lease is the previous owner's
    expect(report.owner?.error).toMatch(/did not write where its ops server answers/);
  });
});

import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import {
  FrontendSimulator,
  startNotificationReceiver,
  type NotificationReceiver,
  type WrittenOperation,
} from '@opstream/frontend-simulator';
import { spawnCli, type CliProcess } from '../helpers/cli';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { FAST_CS_DURATIONS } from '../helpers/running-instance';
import { uniqueName, waitFor } from '../helpers/wait-for';

interface LogLine {
  level: string;
  message: string;
  timestamp: string;
  [field: string]: unknown;
}

/**
 * `opstream run` as operators run it (a child process, JSON lines on stderr): every line about an
 * operation says which operation, subscription and resource; lines about a lease name it; and the
 * Cosmos key, the Clusters Service token and the ops token appear nowhere.
 */
describe('logs of opstream run', () => {
  const csToken = `cs-${crypto.randomUUID()}`;
  const opsToken = `ops-${crypto.randomUUID()}`;
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;
  let run: CliProcess;
  let lines: LogLine[] = [];
  let raw = '';

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    cs = await startClustersServiceSimulator({ port: 0, durations: FAST_CS_DURATIONS, token: csToken });
    receiver = await startNotificationReceiver();
    const databaseId = uniqueName('logs');
    run = spawnCli(['run', '--log-format', 'json', '--log-level', 'debug'], {
      OPSTREAM_LOG_SILENT: '0',
      OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: databaseId,
      OPSTREAM_COSMOS_CREATE_CONTAINERS: 'true',
      OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
      // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
      OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
      OPSTREAM_CLUSTERS_SERVICE_TOKEN: csToken,
      OPSTREAM_CHANGEFEED_START_FROM: 'beginning',
      OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
      OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
      OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '50',
      OPSTREAM_FOLLOW_MAX_DELAY_MS: '400',
      OPSTREAM_OPS_ADDR: '127.0.0.1:0',
      OPSTREAM_OPS_TOKEN: opsToken,
    });
    await waitFor(() => run.stderr().includes('"message":"opstream started"'), {
      timeoutMs: 30_000,
      describe: () => `opstream run to start: ${run.stderr().slice(-3000)}`,
    });
    await waitFor(() => (run.stderr().match(/"message":"changefeed\.lease\.acquired"/g) ?? []).length >= 4, {
      timeoutMs: 30_000,
      describe: () => 'every lease to be acquired',
    });

    const frontend = new FrontendSimulator({ database: cosmos.client.database(databaseId), notificationBaseUrl: receiver.url });
    const sub = crypto.randomUUID();
    await frontend.registerSubscription(sub, crypto.randomUUID());
    const name = uniqueName('c');
    const terminal = async (op: WrittenOperation): Promise<unknown> => (await receiver.waitForNotification(op.operationId, 30_000)).body;
    expect(await terminal(await frontend.createCluster(sub, 'rg', name))).toMatchObject({ status: 'Succeeded' });
    expect(await terminal(await frontend.createNodePool(sub, 'rg', name, 'np1'))).toMatchObject({ status: 'Succeeded' });
    expect(await terminal(await frontend.deleteCluster(sub, 'rg', name))).toMatchObject({ status: 'Succeeded' });
    await frontend.writeRawOperation({ id: crypto.randomUUID(), partitionKey: sub, status: 'Nonsense' });
    await waitFor(() => run.stderr().includes('document dead-lettered'), { describe: () => 'the dead letter to be logged' });

    run.child.kill('SIGTERM');
    const result = await run.exited;
    expect(result.code).toBe(0);
    raw = result.stderr;
    lines = raw
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  });

  afterAll(async () => {
    if (run && run.child.exitCode === null) run.child.kill('SIGKILL');
    await receiver?.close();
    await cs?.close();
    await cosmos?.close();
  });

  it('writes only JSON lines with timestamp, level and message', () => {
    // Nothing but the log: that it runs (for a person starting it by hand) is a record of it too.
    const other = raw.split('\n').filter((l) => l !== '' && !l.startsWith('{'));
    expect(other).toEqual([]);
    expect(lines.filter((l) => /^opstream \S+ running; ops server http:\/\/127\.0\.0\.1:\d+; Ctrl-C stops$/.test(l.message))).toHaveLength(
      1,
    );
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines) {
      expect(Number.isNaN(Date.parse(line.timestamp))).toBe(false);
      expect(['error', 'warn', 'info', 'debug']).toContain(line.level);
      expect(typeof line.message).toBe('string');
    }
  });

  it('every line about an operation names the operation, its subscription and its resource', () => {
    const aboutOperations = lines.filter((l) => l.operationId !== undefined);
    expect(aboutOperations.filter((l) => /^operation \w+ \w+ → \w+$/.test(l.message)).length).toBeGreaterThanOrEqual(3); // one terminal transition each at least (intermediate ones are skipped when the first check finds CS done)
    for (const line of aboutOperations) {
      expect(line).toEqual(expect.objectContaining({ operationId: expect.any(String), subscriptionId: expect.any(String) }));
      // A document that failed validation has no trustworthy resource id; its feed position (lease) is what locates it.
      if (line.message === 'document dead-lettered (validation)') expect(line.leaseToken).toEqual(expect.any(String));
      else expect(line.resourceId).toEqual(expect.stringMatching(/^\/subscriptions\//));
    }
  });

  it('every line about a lease names the lease', () => {
    const aboutLeases = lines.filter((l) => /^(changefeed\.(lease|batch|checkpoint)|relisted )/.test(l.message));
    expect(aboutLeases.length).toBeGreaterThanOrEqual(8);
    for (const line of aboutLeases) expect(line.leaseToken).toEqual(expect.any(String));
  });

  it('never shows the Cosmos key, the Clusters Service token or the ops token', () => {
    expect(raw.length).toBeGreaterThan(1000);
    for (const secret of [cosmos.emu.key, csToken, opsToken]) expect(raw).not.toContain(secret);
    expect(raw).not.toMatch(/type=master&ver=1\.0&sig=[^*]/i);
  });
});

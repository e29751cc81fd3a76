import { randomUUID } from 'crypto';
import { Writable } from 'stream';
import { startClustersServiceSimulator, type ClustersServiceSimulator } from '@opstream/clusters-service-simulator';
import { FrontendSimulator, startNotificationReceiver, type NotificationReceiver } from '@opstream/frontend-simulator';
import { defaultProcessors } from '../../processors/registry';
import { startOpstream, type Opstream } from '../../src/app/opstream-app';
import { createLogger } from '../../src/logging/logger';
import { validate } from '../../src/schemas/validator';
import type { ExplainReport } from '../../src/inspect/explain/report';
import { hostname } from 'os';
import { expectAlertFires } from '../helpers/promtool';
import { runCli } from '../helpers/cli';
import { startTestCosmos, type TestCosmos } from '../helpers/cosmos';
import { FAST_CS_DURATIONS, testConfig } from '../helpers/test-config';
import { uniqueName, waitFor } from '../helpers/wait-for';

/**
 * Two fleets on one Operations container: `opstream` and a misspelt `opstrem`, one instance each, on
 * the Cosmos emulator. Each reports the other (gauge, warning log line), `config check --for run`
 * names the other, and `explain` uses an ops server's answer only when it is the lease owner's.
 */
describe('a second fleet on the same Operations container', () => {
  jest.setTimeout(180_000);
  const opsToken = `ops-${randomUUID()}`;
  let cosmos: TestCosmos;
  let cs: ClustersServiceSimulator;
  let receiver: NotificationReceiver;
  const apps: Opstream[] = [];
  const logs = new Map<string, Array<Record<string, unknown>>>();
  let env: Record<string, string>;
  let databaseId: string;

  const start = async (fleet: string, instance: string): Promise<Opstream> => {
    const lines: Array<Record<string, unknown>> = [];
    logs.set(instance, lines);
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const config = testConfig(
      { cosmosEndpoint: cosmos.emu.endpoint, cosmosKey: cosmos.emu.key, databaseId, csUrl: cs.url },
      {
        'changefeed.name': fleet,
        'changefeed.instanceName': instance,
        'changefeed.otherProcessorsIntervalMs': 300,
        'ops.token': opsToken,
      },
    );
    const app = await startOpstream(config, {
      processors: defaultProcessors,
      logger: createLogger({ level: 'info', format: 'json', stream }),
    });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    cosmos = await startTestCosmos();
    cs = await startClustersServiceSimulator({ port: 0, durations: FAST_CS_DURATIONS, durationsFor: () => ({ installingMs: 3_600_000 }) });
    receiver = await startNotificationReceiver();
    databaseId = uniqueName('fleets');
    env = {
      OPSTREAM_COSMOS_ENDPOINT: cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: databaseId,
      OPSTREAM_CLUSTERS_SERVICE_URL: cs.url,
      OPSTREAM_OPS_TOKEN: opsToken,
    };
  });

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    await receiver?.close();
    await cs?.close();
    await cosmos?.close();
  });

  const gauge = async (app: Opstream): Promise<string> =>
    (await app.metrics.registry.metrics())
      .split('\n')
      .filter((l) => l.startsWith('opstream_other_fleet_leases{'))
      .join('\n');

  it('each fleet reports the other: gauge, warning log line, config check --for run', async () => {
    const right = await start('opstream', 'right-0');
    const typo = await start('opstrem', 'typo-0');
    await waitFor(
      async () => /processor="opstrem"} [1-9]/.test(await gauge(right)) && /processor="opstream"} [1-9]/.test(await gauge(typo)),
      {
        timeoutMs: 30_000,
        describe: () => "each instance to count the other fleet's live leases",
      },
    );
    for (const [instance, other] of [
      ['right-0', 'opstrem'],
      ['typo-0', 'opstream'],
    ]) {
      const warned = logs.get(instance)?.find((l) => l.level === 'warn' && String(l.message).includes('a second fleet'));
      expect(warned?.message).toContain(`${other} (`);
      expect(warned?.message).toContain('OPSTREAM_CHANGEFEED_NAME');
    }
    // The deployed alert, evaluated by Prometheus's own rule engine over what the instance exports.
    const exported = await gauge(right);
    const leases = /processor="opstrem"} (\d+)/.exec(exported)?.[1] ?? '';
    expectAlertFires('OpstreamSecondFleet', exported, { labels: { processor: 'opstrem' }, value: leases });
    const check = await runCli(['config', 'check', '--for', 'run'], { ...env, OPSTREAM_CHANGEFEED_NAME: 'opstream' });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/warning: a second fleet reads container Operations: opstrem \(\d+ live lease\(s\), owners typo-0\)/);
  });

  it('explain answers from the owner, and flags an ops server that is not the owner', async () => {
    const [right, typo] = apps;
    const database = cosmos.client.database(databaseId);
    const frontend = new FrontendSimulator({ database, notificationBaseUrl: receiver.url });
    const sub = randomUUID();
    await frontend.registerSubscription(sub, randomUUID());
    const op = await frontend.createCluster(sub, 'rg', uniqueName('fleet'));
    const ask = async (extra: string[]): Promise<ExplainReport> =>
      waitFor(
        async () => {
          const r = await runCli(['explain', op.operationId, '--json', ...extra], { ...env, OPSTREAM_CHANGEFEED_NAME: 'opstream' });
          if (r.code !== 0) return undefined;
          const report = validate('explainReport', JSON.parse(r.stdout));
          return report.owner?.state?.state === 'parked' || report.owner?.answeredBy ? report : undefined;
        },
        { timeoutMs: 45_000, intervalMs: 300, describe: () => 'explain to hear from an ops server' },
      );
    // Through the lease: the owner itself answers.
    const owned = await ask([]);
    expect(owned.owner).toMatchObject({ instance: 'right-0', url: right.opsUrl, state: { instance: 'right-0' } });
    expect(owned.diagnosis).toMatch(/by right-0$/);
    // Through an address that reaches the other instance: its answer is not used, and explain says whom to ask.
    const wrong = await ask(['--owner-url', String(typo.opsUrl)]);
    expect(wrong.owner).toMatchObject({ instance: 'right-0', answeredBy: 'typo-0' });
    expect(wrong.owner?.state).toBeUndefined();
    expect(wrong.diagnosis).toMatch(/^owned by right-0 \(lease renewed \d+ s ago\); not known what it does: typo-0 answered instead/);
    expect(wrong.diagnosis).toContain(`kubectl port-forward pod/${hostname()} ${new URL(String(right.opsUrl)).port}`);
  });
});

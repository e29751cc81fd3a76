import { randomUUID } from 'node:crypto';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { clusterArmId, operationStatusId } from '@opstream/frontend-simulator';
import { createLogger } from '../../../src/logging/logger';
import { OperationEventsPublisher } from '../../../src/service-bus/operation-events-publisher';
import { DeadLettersRepository } from '../../../src/cosmos';
import { runCli, spawnCli } from '../../helpers/cli';
import { startTestCosmos, type TestCosmos } from '../../helpers/cosmos';
import { uniqueName } from '../../helpers/wait-for';
import { EVENTS_CONFIG, EVENTS_TOPIC } from '../service-bus-events/operation-events-helpers';

const TAP_CONFIG = {
  ...EVENTS_CONFIG,
  UserConfig: {
    ...EVENTS_CONFIG.UserConfig,
    Namespaces: EVENTS_CONFIG.UserConfig.Namespaces.map((n) => ({
      ...n,
      Topics: n.Topics.map((t) =>
        t.Name === EVENTS_TOPIC ? { ...t, Subscriptions: [...t.Subscriptions, { Name: 'tap', Properties: {} }] } : t,
      ),
    })),
  },
};

function operation(sub: string, name: string, status: string, at: string): Record<string, unknown> {
  const id = randomUUID();
  return {
    id,
    partitionKey: sub,
    request: 'Create',
    externalId: clusterArmId(sub, 'rg', name),
    internalId: '',
    operationId: operationStatusId(sub, 'eastus', id),
    startTime: at,
    lastTransitionTime: at,
    status,
  };
}

/** `opstream tap operation-events` reads the topic through a subscription, from outside any instance. */
describe('opstream tap operation-events', () => {
  let bus: ServiceBusEmulator;
  let cosmos: TestCosmos;
  let publisher: OperationEventsPublisher;
  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: TAP_CONFIG });
    cosmos = await startTestCosmos();
    // Where an event Service Bus cannot take would be set aside (none is, here).
    const { database } = await cosmos.client.databases.createIfNotExists({ id: uniqueName('tap') });
    const { container } = await database.containers.createIfNotExists({ id: 'DeadLetters', partitionKey: { paths: ['/partitionKey'] } });
    publisher = new OperationEventsPublisher({
      access: { kind: 'connection-string', connectionString: bus.connectionString },
      topic: EVENTS_TOPIC,
      logger: createLogger({ silent: true }),
      deadLetters: new DeadLettersRepository(container),
    });
  });
  afterAll(async () => {
    await publisher?.close();
    await bus?.close();
    await cosmos?.close();
  });

  it('prints the published events, filtered, as JSON lines, from the named subscription', async () => {
    const sub = randomUUID();
    const now = new Date().toISOString();
    const tap = spawnCli([
      'tap',
      'operation-events',
      '--json',
      '--status',
      'Failed',
      '--limit',
      '1',
      '--service-bus-connection-string',
      bus.connectionString,
    ]);
    await tap.waitForStderr(
      (l) => l.startsWith('tap: following topic operation-events through its subscription tap'),
      20_000,
      'that it is connected',
    );
    const failed = operation(sub, 'broken', 'Failed', now);
    await publisher.publish([operation(sub, 'fine', 'Succeeded', now), failed]);
    const result = await tap.exited;
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stream: string; data: Record<string, unknown> });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.stream).toBe('operation-events');
    expect(lines[0]?.data).toMatchObject({
      operationId: failed.id,
      status: 'Failed',
      request: 'Create',
      resourceId: failed.externalId,
      subscriptionId: sub,
    });
  });

  it('a subscription that does not exist, or no namespace at all, is a configuration error naming the fix (exit 78)', async () => {
    const missing = await runCli([
      'tap',
      'operation-events',
      '--topic-subscription',
      'nobody',
      '--service-bus-connection-string',
      bus.connectionString,
    ]);
    expect(missing.code).toBe(78);
    expect(missing.stderr).toContain('subscription nobody of topic operation-events does not exist');
    expect(missing.stderr).toContain('--topic-subscription');
    const none = await runCli(['tap', 'operation-events']);
    expect(none.code).toBe(78);
    expect(none.stderr).toContain('OPSTREAM_SERVICE_BUS_CONNECTION_STRING');
  });
});

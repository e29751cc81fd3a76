import { randomUUID } from 'node:crypto';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { clusterArmId, operationStatusId, type WrittenOperation } from '@opstream/frontend-simulator';
import type { Opstream } from '../../../src/app/opstream-app';
import { ARM_ERROR_LIMITS } from '../../../src/domain/bounded-arm-error';
import { startHarness, type Harness } from '../../helpers/opstream-harness';
import { waitFor } from '../../helpers/wait-for';
import { EVENTS_CONFIG, EVENTS_TOPIC, collect, published, type Collector, type Published } from './operation-events-helpers';

const TERMINAL = new Set(['Succeeded', 'Failed', 'Canceled']);

/** A terminal Operation as a frontend (or anything with write access to Operations) could write it, in `sub`. */
function terminalOperation(sub: string, name: string, overrides: Record<string, unknown>): Record<string, unknown> {
  const id = randomUUID();
  const now = new Date().toISOString();
  return {
    id,
    partitionKey: sub,
    request: 'Create',
    externalId: clusterArmId(sub, 'rg', name),
    internalId: '',
    operationId: operationStatusId(sub, 'eastus', id),
    startTime: now,
    lastTransitionTime: now,
    status: 'Failed',
    ...overrides,
  };
}

async function terminalEventOf(c: Collector, operationId: string): Promise<Published> {
  return waitFor(() => published(c.messages).find((p) => p.id === operationId && TERMINAL.has(p.status)), {
    timeoutMs: 60_000,
    describe: () => `the terminal event of ${operationId} (have ${c.messages.length} messages)`,
  });
}

/**
 * Operation events carry fields of documents: none may make an event larger than Service Bus takes,
 * and one that still cannot be sent must not hold its feed range (every later event of the range
 * would wait behind it for good). Through the real SDKs, the Cosmos emulator and the Service Bus stand-in.
 */
/** The Service Bus stand-in with `config`, one opstream instance publishing to it, and a collector of every event; set up around the describe's tests. */
function eventsStack(config: unknown): { h: Harness; all: Collector } {
  let bus: ServiceBusEmulator | undefined;
  const stack = {} as { h: Harness; all: Collector };
  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config });
    stack.h = await startHarness({ settings: { 'serviceBus.connectionString': bus.connectionString } });
    stack.all = collect(bus.connectionString);
  });
  afterAll(async () => {
    await stack.all?.close();
    await stack.h?.close();
    await bus?.close();
  });
  return stack;
}

describe('Operation events: a field of a document cannot hold the feed range', () => {
  const stack = eventsStack(EVENTS_CONFIG);

  it('a 300 KB error.message is published cut, with a marker; a 300 KB clientRequestId is refused; later events of the range go out', async () => {
    const { h, all } = stack;
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, randomUUID());
    const longError = terminalOperation(sub, 'long-error', {
      error: { code: 'InternalServerError', message: 'm'.repeat(300_000), target: 't'.repeat(300_000), extra: 'x'.repeat(100_000) },
    });
    const longId = terminalOperation(sub, 'long-id', { status: 'Succeeded', clientRequestId: 'c'.repeat(300_000) });
    await h.frontend.writeRawOperation(longError);
    await h.frontend.writeRawOperation(longId);
    // Same subscription, so the same partition key and feed range as the two above, written after them.
    const after = await h.frontend.createCluster(sub, 'rg', 'after');
    expect(await h.terminal(after)).toBe('Succeeded');

    await terminalEventOf(all, after.operationId);
    const cut = await terminalEventOf(all, String(longError.id));
    const error = cut.body.error as { code: string; message: string; target: string };
    expect(error.message).toBe(`${'m'.repeat(ARM_ERROR_LIMITS.messageChars)}…[truncated: 300000 characters]`);
    expect(error.target).toBe(`${'t'.repeat(ARM_ERROR_LIMITS.targetChars)}…[truncated: 300000 characters]`);
    expect(error).not.toHaveProperty('extra');
    expect(JSON.stringify(cut.body).length).toBeLessThan(16 * 1024);
    // Invalid: the pipeline dead-letters it; it has no event.
    expect(published(all.messages).filter((p) => p.id === longId.id)).toEqual([]);
  });
});

describe('Operation events: an event Service Bus still cannot take is dead-lettered as an event and the range moves on', () => {
  /** A topic that takes messages of at most 4 KiB (MaxMessageSizeInKilobytes, as on Premium). */
  const SMALL_TOPIC_CONFIG = {
    UserConfig: {
      ...EVENTS_CONFIG.UserConfig,
      Namespaces: EVENTS_CONFIG.UserConfig.Namespaces.map((n) => ({
        ...n,
        Topics: n.Topics.map((t) =>
          t.Name === EVENTS_TOPIC ? { ...t, Properties: { ...t.Properties, MaxMessageSizeInKilobytes: 4 } } : t,
        ),
      })),
    },
  };

  const stack = eventsStack(SMALL_TOPIC_CONFIG);

  it('a create failing with a 4000-character message: its Failed event is dead-lettered (reason publication); the next create of the range is published', async () => {
    const { h, all } = stack;
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, randomUUID());
    const message = `quota exceeded: ${'q'.repeat(3984)}`;
    h.cs.admin.addProvisionFailure({ code: 'OCM3001', clusterName: 'too-big', message });
    const failed = await h.frontend.createCluster(sub, 'rg', 'too-big');
    expect(await h.terminal(failed)).toBe('Failed');
    const after: WrittenOperation = await h.frontend.createCluster(sub, 'rg', 'after');
    expect(await h.terminal(after)).toBe('Succeeded');

    await terminalEventOf(all, after.operationId);
    const dead = await waitFor(
      async () => {
        const { resources } = await h.database
          .container('DeadLetters')
          .items.query<Record<string, unknown>>({
            query: 'SELECT * FROM c WHERE c.source.id = @id',
            parameters: [{ name: '@id', value: failed.operationId }],
          })
          .fetchAll();
        return resources[0];
      },
      { describe: () => `the dead letter of the Failed event of ${failed.operationId}` },
    );
    expect(dead).toMatchObject({
      reason: 'publication',
      partitionKey: sub,
      source: { container: `topic:${EVENTS_TOPIC}`, id: failed.operationId, partitionKey: sub },
      error: { name: 'OperationEventTooLargeError', message: expect.stringContaining('takes messages of at most 4096 bytes') },
      document: { id: failed.operationId, status: 'Failed', error: { code: 'OCM3001', message } },
    });
    expect(typeof (dead.source as { etag?: unknown }).etag).toBe('string');
    // Its earlier transitions (those not coalesced by the feed) fitted and went out; only the one that cannot is missing.
    for (const p of published(all.messages).filter((e) => e.id === failed.operationId))
      expect(['Accepted', 'Provisioning']).toContain(p.status);
    const metrics = await (h.instances[0] as Opstream).metrics.registry.getSingleMetricAsString('opstream_dead_letters_total');
    expect(metrics).toContain('opstream_dead_letters_total{reason="publication"} 1');
  });
});

import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceBusClient } from '@azure/service-bus';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import type { WrittenOperation } from '@opstream/frontend-simulator';
import type { Opstream } from '../../../src/app/opstream-app';
import { startOperationEvents } from '../../../src/app/operation-events';
import { DeadLettersRepository } from '../../../src/cosmos';
import { changefeedOptions } from '../../../src/app/wiring/pipeline';
import { createMetrics } from '../../../src/ops/metrics';
import { createLogger } from '../../../src/logging/logger';
import { check } from '../../../src/schemas/validator';
import { operationEventOf, resourceSessionId } from '../../../src/service-bus/operation-event-message';
import type { Operation } from '../../../src/domain/types.generated';
import { readOperation, startHarness, type Harness } from '../../helpers/opstream-harness';
import { waitFor } from '../../helpers/wait-for';
import { EVENTS_CONFIG, EVENTS_TOPIC, collect, published, statusesOf, type Collector, type Published } from './operation-events-helpers';

const TERMINAL = new Set(['Succeeded', 'Failed', 'Canceled']);
/** Long enough that Provisioning and Deleting stay in place across many polls of the publisher's ranges (at most 100 ms apart when idle). */
const CS_DURATIONS = { installingMs: 1200, uninstallingMs: 1200 };

/** What opstream wrote, from its transitions stream, after the status the frontend wrote. */
function groundTruth(app: Opstream): Map<string, string[]> {
  const written = new Map<string, string[]>();
  app.taps.tap<{ operationId?: string; status?: string }>('transitions').subscribe((e) => {
    if (!e.data.operationId || !e.data.status) return;
    written.set(e.data.operationId, [...(written.get(e.data.operationId) ?? []), e.data.status]);
  });
  return written;
}

function expectedStatuses(op: WrittenOperation, written: Map<string, string[]>): string[] {
  return [op.request === 'Delete' ? 'Deleting' : 'Accepted', ...(written.get(op.operationId) ?? [])];
}

async function allTerminalPublished(c: Collector, ops: readonly WrittenOperation[]): Promise<Published[]> {
  return waitFor(
    () => {
      const all = published(c.messages);
      return ops.every((op) => all.some((p) => p.id === op.operationId && TERMINAL.has(p.status))) ? all : undefined;
    },
    { timeoutMs: 60_000, describe: () => `the terminal event of each of ${ops.length} operations (have ${c.messages.length} messages)` },
  );
}

/** Published statuses are the written ones in order, each once, the terminal one last (an intermediate one may be coalesced). */
function expectFaithful(all: Published[], ops: readonly WrittenOperation[], written: Map<string, string[]>): { coalesced: number } {
  let coalesced = 0;
  for (const op of ops) {
    const expected = expectedStatuses(op, written);
    const got = statusesOf(all, op.operationId);
    expect(new Set(got).size).toBe(got.length);
    expect(got[got.length - 1]).toBe(expected[expected.length - 1]);
    expect(got.filter((s) => expected.includes(s)).join()).toBe(got.join());
    expect(expected.filter((s) => got.includes(s)).join()).toBe(got.join());
    coalesced += expected.length - got.length;
  }
  return { coalesced };
}

const serviceBusSettings = (connectionString: string): Record<string, unknown> => ({ 'serviceBus.connectionString': connectionString });

/**
 * Operation events out (issue 17, section 1), through the real SDKs against the local Cosmos emulator
 * and Service Bus: what is published, in which order, with which properties, and that nothing is lost
 * or doubled when Service Bus refuses, disappears, or the same transitions are sent again.
 */
describe('Operation events are published on Service Bus', () => {
  let bus: ServiceBusEmulator;
  let h: Harness;
  let written: Map<string, string[]>;
  let all: Collector;
  const ops: WrittenOperation[] = [];

  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: EVENTS_CONFIG });
    h = await startHarness({ csDurations: CS_DURATIONS, settings: serviceBusSettings(bus.connectionString) });
    written = groundTruth(h.instances[0] as Opstream);
    all = collect(bus.connectionString);
  });
  afterAll(async () => {
    await all?.close();
    await h?.close();
    await bus?.close();
  });

  it('every transition, whoever wrote it, once, in order per resource, with the specified id, session and properties', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, randomUUID());
    const [c0, c1] = await Promise.all([h.frontend.createCluster(sub, 'rg', 'c0'), h.frontend.createCluster(sub, 'rg', 'c1')]);
    ops.push(c0 as WrittenOperation, c1 as WrittenOperation);
    for (const op of ops) expect(await h.terminal(op)).toBe('Succeeded');
    const np = await h.frontend.createNodePool(sub, 'rg', 'c0', 'np0');
    expect(await h.terminal(np)).toBe('Succeeded');
    const del = await h.frontend.deleteCluster(sub, 'rg', 'c1');
    expect(await h.terminal(del)).toBe('Succeeded');
    ops.push(np, del);

    const events = await allTerminalPublished(all, ops);
    const { coalesced } = expectFaithful(events, ops, written);
    // Provisioning and Deleting last 1.2 s here: a status that stays across polls is never coalesced. A
    // Create's Accepted may be: its dispatch writes Provisioning milliseconds after the frontend's write.
    for (const op of [c0, c1, np] as WrittenOperation[]) {
      const lasting = (statuses: string[]): string[] => statuses.filter((s) => op.request !== 'Create' || s !== 'Accepted');
      expect([op.request, lasting(statusesOf(events, op.operationId))]).toEqual([op.request, lasting(expectedStatuses(op, written))]);
    }
    expect(statusesOf(events, del.operationId)).toEqual(['Deleting', 'Succeeded']);
    process.stdout.write(
      `operation events: ${events.length} published for ${ops.length} operations, ${coalesced} intermediate status(es) coalesced\n`,
    );

    for (const e of events) {
      const op = ops.find((o) => o.operationId === e.id) as WrittenOperation;
      expect(check('operationEvent', e.body).ok).toBe(true);
      expect(e.messageId).toBe(`${e.id}:${e.status}:${String(e.body.lastTransitionTime)}`);
      expect(e.sessionId).toBe(createHash('sha256').update(op.externalId.toLowerCase()).digest('hex'));
      expect(e.properties).toEqual({ subscriptionId: sub, resourceType: e.body.resourceType, request: op.request, status: e.status });
      expect(e.body.resourceType).toBe(
        op.externalId.includes('/nodePools/')
          ? 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters/nodePools'
          : 'Microsoft.RedHatOpenShift/hcpOpenShiftClusters',
      );
    }
    // The last event of each operation is its public view as stored.
    for (const op of ops) {
      const doc = (await readOperation(h, op)) as unknown as Operation;
      const last = events.filter((e) => e.id === op.operationId).pop() as Published;
      expect(last.body).toEqual(operationEventOf(doc));
      expect(last.body).not.toHaveProperty('notificationUri');
    }
    // Per resource, transitions are in the order they were written.
    for (const session of new Set(events.map((e) => e.sessionId))) {
      const times = events.filter((e) => e.sessionId === session).map((e) => Date.parse(String(e.body.lastTransitionTime)));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    }

    // A session receiver gets one resource's events in order; a SQL rule on the properties picks terminal deletes.
    const client = new ServiceBusClient(bus.connectionString);
    try {
      const session = await client.acceptSession(EVENTS_TOPIC, 'by-resource', resourceSessionId((c0 as WrittenOperation).externalId), {
        receiveMode: 'receiveAndDelete',
      });
      const got = await session.receiveMessages(10, { maxWaitTimeInMs: 2000 });
      expect(got.map((m) => (m.body as { status: string }).status)).toEqual(statusesOf(events, (c0 as WrittenOperation).operationId));
      await session.close();
      const deletes = client.createReceiver(EVENTS_TOPIC, 'terminal-deletes', { receiveMode: 'receiveAndDelete' });
      const done = await deletes.receiveMessages(10, { maxWaitTimeInMs: 2000 });
      expect(done.map((m) => [(m.body as { id: string }).id, m.applicationProperties?.status])).toEqual([[del.operationId, 'Succeeded']]);
      await deletes.close();
    } finally {
      await client.close();
    }
    const metrics = await (h.instances[0] as Opstream).metrics.registry.getSingleMetricAsString('opstream_service_bus_published_total');
    expect(metrics).toMatch(new RegExp(`entity="${EVENTS_TOPIC}",status="Succeeded"\\} [4-9]`));
  });

  it('the same transitions sent again (a retry, a replay from the beginning) are dropped by duplicate detection', async () => {
    expect(ops.length).toBeGreaterThan(0);
    await all.close();
    const activeOfAll = (): number => Number(bus.entities().find((e) => e.path === `${EVENTS_TOPIC}/Subscriptions/all`)?.active);
    expect(activeOfAll()).toBe(0);
    // A second publisher under a lease prefix of its own reads the whole feed again: the latest version of every operation.
    const config = {
      ...h.config,
      serviceBus: { ...h.config.serviceBus, operationEventsLeasePrefix: `replay-${randomUUID().slice(0, 8)}` },
    };
    const metrics = createMetrics({ defaultMetrics: false });
    const operations = h.database.container('Operations');
    const replay = startOperationEvents(config, {
      access: { kind: 'connection-string', connectionString: bus.connectionString },
      operationsContainer: operations,
      leasesContainer: h.database.container('Leases'),
      changefeed: { ...changefeedOptions(config, 'replayer', createLogger({ silent: true })), startFrom: 'beginning' },
      metrics,
      logger: createLogger({ silent: true }),
      deadLetters: new DeadLettersRepository(h.database.container('DeadLetters')),
    });
    if (!replay) throw new Error('the publisher should be on with a connection string');
    try {
      const { resources } = await operations.items.query('SELECT VALUE COUNT(1) FROM c').fetchAll();
      const documents = Number(resources[0]);
      await waitFor(() => replay.stats().published >= documents, {
        timeoutMs: 30_000,
        describe: () => `the replay to have ${documents} events accepted (has ${replay.stats().published})`,
      });
      // Accepted and dropped at send time: nothing reached the subscription.
      expect(activeOfAll()).toBe(0);
    } finally {
      await replay.stop();
      all = collect(bus.connectionString);
    }
  });

  it('while Service Bus refuses sends the pipeline keeps completing operations; afterwards every transition is published', async () => {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, randomUUID());
    // Write → ARM told the operation ended, for creates with Service Bus up and then refusing: a figure, not a bound.
    const completion = async (prefix: string): Promise<{ ops: WrittenOperation[]; medianMs: number }> => {
      const ops = await Promise.all([0, 1, 2].map((i) => h.frontend.createCluster(sub, 'rg', `${prefix}-${i}`)));
      const ms = await Promise.all(
        ops.map(async (op) => {
          expect(await h.terminal(op)).toBe('Succeeded');
          return Date.now() - op.writtenAt;
        }),
      );
      return { ops, medianMs: [...ms].sort((a, b) => a - b)[1] as number };
    };
    const up = await completion('up');
    bus.setFaults({ kind: 'refuse-send', entity: EVENTS_TOPIC });
    const { ops: down, medianMs } = await completion('outage');
    process.stdout.write(
      `create write → terminal, median of 3: ${up.medianMs} ms with Service Bus up, ${medianMs} ms while it refuses every send\n`,
    );
    const app = h.instances[0] as Opstream;
    await waitFor(
      async () =>
        /operation="send"\} [1-9]/.test(await app.metrics.registry.getSingleMetricAsString('opstream_service_bus_failures_total')),
      {
        describe: () => 'refused sends counted',
      },
    );
    expect(published(all.messages).filter((p) => down.some((op) => op.operationId === p.id))).toEqual([]);
    bus.clearFaults();
    const events = await allTerminalPublished(all, [...up.ops, ...down]);
    expectFaithful(events, [...up.ops, ...down], written);
  });
});

describe('Operation events survive the Service Bus namespace going away', () => {
  it('with the stand-in closed, operations complete; once it is back (same port, journal kept), every transition is published once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'opstream-sb-'));
    let bus = await startServiceBus({ port: 0, config: EVENTS_CONFIG, dataDir });
    const port = bus.port;
    const h = await startHarness({ csDurations: CS_DURATIONS, settings: serviceBusSettings(bus.connectionString) });
    const written = groundTruth(h.instances[0] as Opstream);
    let all: Collector | undefined;
    try {
      const sub = randomUUID();
      await h.frontend.registerSubscription(sub, randomUUID());
      const before = await h.frontend.createCluster(sub, 'rg', 'before');
      expect(await h.terminal(before)).toBe('Succeeded');
      await waitFor(() => ((h.instances[0] as Opstream).operationEvents?.stats().published ?? 0) >= 3, {
        describe: () => 'the first create published',
      });
      await bus.close();
      const during = await Promise.all([0, 1].map((i) => h.frontend.createCluster(sub, 'rg', `during-${i}`)));
      for (const op of during) expect(await h.terminal(op)).toBe('Succeeded');
      bus = await startServiceBus({ port, config: EVENTS_CONFIG, dataDir });
      all = collect(bus.connectionString);
      const ops = [before, ...during];
      const events = await allTerminalPublished(all, ops);
      expectFaithful(events, ops, written);
    } finally {
      await all?.close();
      await h.close();
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

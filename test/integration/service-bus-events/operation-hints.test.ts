import { randomUUID } from 'node:crypto';
import { ServiceBusClient } from '@azure/service-bus';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import { FrontendSimulator, OPERATION_HINTS_ENTITY, type WrittenOperation } from '@opstream/frontend-simulator';
import type { ProcessorState } from '@opstream/changefeed';
import type { Opstream } from '../../../src/app/opstream-app';
import { effectivePartitionKey, rangeContains } from '../../../src/changefeed/util/epk';
import { readOperation, startHarness, type Harness } from '../../helpers/opstream-harness';
import { waitFor } from '../../helpers/wait-for';

type LeaseState = ProcessorState['leases'][number];

const CONFIG = {
  UserConfig: {
    Namespaces: [{ Name: 'sbemulatorns', Queues: [{ Name: OPERATION_HINTS_ENTITY, Properties: {} }], Topics: [] }],
    Logging: { Type: 'File' },
  },
};
/** An idle poll ceiling no test here waits out: an operation read before its range's pause ends was read thanks to a hint. */
const LONG_CEILING_MS = 60_000;

const hintSettings = (
  connectionString: string,
  ceilingMs = LONG_CEILING_MS,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  'serviceBus.connectionString': connectionString,
  'serviceBus.hints': true,
  'serviceBus.hintsMaxPollDelayMs': ceilingMs,
  ...extra,
});

/** A subscription id whose partition falls in `range`. */
function subscriptionIn(range: { min: string; max: string }): string {
  for (;;) {
    const sub = randomUUID();
    if (rangeContains(range, effectivePartitionKey(sub))) return sub;
  }
}

/** Every lease the instance owns is in an idle pause ending later than `aheadMs` from now. */
async function idleLeases(app: Opstream, aheadMs: number): Promise<LeaseState[]> {
  return waitFor(
    async () => {
      const owned = (await app.pipeline.processor.getCurrentState({ estimateLag: false })).leases.filter((l) => l.ownedByThisInstance);
      return owned.length > 0 && owned.every((l) => (l.idleUntil ?? 0) > Date.now() + aheadMs) ? owned : undefined;
    },
    { timeoutMs: 45_000, describe: () => `every owned lease idle for another ${aheadMs} ms` },
  );
}

async function received(app: Opstream): Promise<Record<string, number>> {
  const text = await app.metrics.registry.getSingleMetricAsString('opstream_service_bus_received_total');
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/entity="operation-hints",outcome="(\w+)"\} (\d+)/g)) out[m[1]] = Number(m[2]);
  return out;
}

/** The Operation once opstream has moved it on from Accepted (the frontend's status). */
async function handled(h: Harness, op: WrittenOperation, timeoutMs: number): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> | undefined;
  return waitFor(
    async () => {
      last = await readOperation(h, op);
      return last && last.status !== 'Accepted' ? last : undefined;
    },
    { timeoutMs, describe: () => `operation ${op.operationId} to be handled (is ${String(last?.status)})` },
  );
}

async function createCluster(fe: FrontendSimulator, sub: string): Promise<WrittenOperation> {
  await fe.registerSubscription(sub, randomUUID());
  return fe.createCluster(sub, 'rg', `c-${randomUUID().slice(0, 8)}`);
}

/**
 * Wake-up hints (issue 17, section 3), through the real SDK end to end: the frontend simulator
 * sends a hint after each Operation write, opstream wakes the range that owns its partition key.
 */
describe('operation hints wake the range that owns the operation', () => {
  let bus: ServiceBusEmulator;
  const harnesses: Harness[] = [];
  const frontends: FrontendSimulator[] = [];
  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: CONFIG });
  });
  afterEach(async () => {
    await Promise.all(frontends.splice(0).map((f) => f.close()));
    await Promise.all(harnesses.splice(0).map((h) => h.close()));
  });
  afterAll(() => bus.close());

  async function start(settings: Record<string, unknown>): Promise<{ h: Harness; app: Opstream; hinting: FrontendSimulator }> {
    const h = await startHarness({ settings });
    harnesses.push(h);
    const hinting = new FrontendSimulator({
      database: h.database,
      notificationBaseUrl: h.receiver.url,
      lockTimeoutMs: 45_000,
      hints: { connectionString: bus.connectionString },
    });
    frontends.push(hinting);
    return { h, app: h.instances[0] as Opstream, hinting };
  }

  it('with a 60 s idle ceiling, a hinted operation is handled before its range would have been read, an unhinted one is not', async () => {
    const { h, app, hinting } = await start(hintSettings(bus.connectionString));
    const leases = await idleLeases(app, 20_000);
    expect(leases).toHaveLength(4);
    const [hintedRange, quietRange] = [leases[1], leases[3]];
    // Written first, without a hint, in another range that is pausing for at least 20 s more.
    const quiet = await createCluster(h.frontend, subscriptionIn(quietRange.feedRange));
    const hinted = await createCluster(hinting, subscriptionIn(hintedRange.feedRange));
    expect(hinted.hintSent).toBe(true);

    const doc = await handled(h, hinted, 15_000);
    // Handled by opstream (it wrote the transition) before the range's own next read was due.
    expect(Date.parse(String(doc.lastTransitionTime))).toBeLessThan(hintedRange.idleUntil as number);
    expect((await readOperation(h, quiet))?.status).toBe('Accepted');
    expect((await idleLeases(app, 5_000)).map((l) => l.leaseToken)).toContain(quietRange.leaseToken);
    expect((await received(app)).woke).toBeGreaterThanOrEqual(1);
    expect(await h.terminal(hinted)).toBe('Succeeded');
  });

  it('a hint for a range owned elsewhere and messages that are not hints are counted and change nothing', async () => {
    const { h, app, hinting } = await start(hintSettings(bus.connectionString, LONG_CEILING_MS, { 'changefeed.maxLeasesPerInstance': 1 }));
    const [mine] = await idleLeases(app, 20_000);
    const elsewhere = (await app.pipeline.processor.getCurrentState({ estimateLag: false })).leases.find(
      (l) => !l.ownedByThisInstance,
    ) as LeaseState;
    const client = new ServiceBusClient(bus.connectionString);
    try {
      const sender = client.createSender(OPERATION_HINTS_ENTITY);
      await sender.sendMessages([
        { body: { partitionKey: subscriptionIn(elsewhere.feedRange), operationId: randomUUID() } },
        { body: { partitionKey: 'NOT-LOWER-CASE', operationId: randomUUID() } },
        { body: 'read everything now' },
      ]);
      await sender.close();
    } finally {
      await client.close();
    }
    await waitFor(
      async () => {
        const r = await received(app);
        return r.ignored === 1 && r.invalid === 2;
      },
      { describe: () => 'one ignored and two invalid hints counted' },
    );
    expect((await received(app)).woke).toBe(0);
    // Harmless: the instance's own range still pauses, and a hint for it still wakes it.
    expect((await idleLeases(app, 10_000)).map((l) => l.leaseToken)).toEqual([mine.leaseToken]);
    const op = await createCluster(hinting, subscriptionIn(mine.feedRange));
    await handled(h, op, 15_000);
    expect((await received(app)).woke).toBe(1);
  });

  it('with Service Bus down, operations still complete through the idle poll, and the failures are counted', async () => {
    const down = await startServiceBus({ port: 0, config: CONFIG });
    const connectionString = down.connectionString;
    await down.close();
    const h = await startHarness({ settings: hintSettings(connectionString, 1_000) });
    harnesses.push(h);
    const app = h.instances[0] as Opstream;
    const hinting = new FrontendSimulator({
      database: h.database,
      notificationBaseUrl: h.receiver.url,
      lockTimeoutMs: 45_000,
      hints: { connectionString, sendTimeoutMs: 500 },
    });
    frontends.push(hinting);
    const ops = [await createCluster(hinting, randomUUID()), await createCluster(hinting, randomUUID())];
    expect(ops.map((o) => o.hintSent)).toEqual([false, false]);
    for (const op of ops) expect(await h.terminal(op, 30_000)).toBe('Succeeded');
    await waitFor(
      async () =>
        /operation-hints",operation="receive"\} [1-9]/.test(
          await app.metrics.registry.getSingleMetricAsString('opstream_service_bus_failures_total'),
        ),
      {
        describe: () => 'receive failures counted',
      },
    );
  });
});

import { randomUUID } from 'node:crypto';
import { ServiceBusClient } from '@azure/service-bus';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import type { WrittenOperation } from '@opstream/frontend-simulator';
import type { Opstream } from '../../../src/app/opstream-app';
import { readOperation, startHarness, waitForStatus, type Harness } from '../../helpers/opstream-harness';
import { waitFor } from '../../helpers/wait-for';
import { CONFIG, TOPIC } from './cs-events-config';

/** Long enough that the follow's own checks (every ≤ 400 ms here) look several times per create. */
const CS_DURATIONS = { pendingMs: 100, validatingMs: 100, installingMs: 1200 };
const STATUS_READ = 'GET /clusters/{id}/status';
const CREATES = 4;

/** One status call per read (no batching), so the simulator's counter of that endpoint counts every status read. */
const settings = (connectionString?: string): Record<string, unknown> => ({
  'follow.batchWindowMs': 0,
  ...(connectionString ? { 'serviceBus.connectionString': connectionString, 'serviceBus.followDelayMs': 20_000 } : {}),
});

async function createClusters(h: Harness, n: number): Promise<WrittenOperation[]> {
  const sub = randomUUID();
  await h.frontend.registerSubscription(sub, randomUUID());
  return Promise.all(Array.from({ length: n }, (_, i) => h.frontend.createCluster(sub, 'rg', `c${i}-${randomUUID().slice(0, 8)}`)));
}

async function metric(app: Opstream, name: string): Promise<string> {
  return app.metrics.registry.getSingleMetricAsString(name);
}

/**
 * Clusters Service events in (issue 17, section 2), through the real SDK end to end: the simulator
 * publishes state changes on the local Service Bus, opstream receives them and checks the cluster at
 * once; the status read stays the truth.
 */
describe('Clusters Service events bring the status follow forward', () => {
  let bus: ServiceBusEmulator;
  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: CONFIG });
  });
  afterAll(() => bus.close());

  it('creates complete with fewer status reads per operation than the follow alone makes', async () => {
    const reads: Record<'off' | 'on', number> = { off: 0, on: 0 };
    for (const mode of ['off', 'on'] as const) {
      const h = await startHarness({
        csDurations: CS_DURATIONS,
        settings: settings(mode === 'on' ? bus.connectionString : undefined),
        csServiceBus: bus.connectionString,
      });
      try {
        const ops = await createClusters(h, CREATES);
        for (const op of ops) expect(await h.terminal(op)).toBe('Succeeded');
        reads[mode] = h.cs.admin.count(STATUS_READ) / CREATES;
        if (mode === 'on')
          expect(await metric(h.instances[0] as Opstream, 'opstream_service_bus_received_total')).toMatch(/outcome="woke"\} [1-9]/);
      } finally {
        await h.close();
      }
    }
    // The follow alone looks several times during a 1.4 s create; with events, the event for `ready` triggers the one read that ends it.
    expect(reads.off).toBeGreaterThanOrEqual(2);
    expect(reads.on).toBeLessThanOrEqual(1.25);
  });

  it('a wrong "ready" event costs one read and changes nothing: the status read decides', async () => {
    const h = await startHarness({
      csDurations: { ...CS_DURATIONS, installingMs: 3000 },
      settings: settings(bus.connectionString),
      csServiceBus: bus.connectionString,
    });
    const client = new ServiceBusClient(bus.connectionString);
    try {
      const [op] = await createClusters(h, 1);
      const dispatched = await waitFor(async () => {
        const doc = await readOperation(h, op as WrittenOperation);
        return typeof doc?.internalId === 'string' && doc.internalId !== '' ? doc : undefined;
      });
      const href = String(dispatched.internalId);
      const before = h.cs.admin.count(STATUS_READ);
      const sender = client.createSender(TOPIC);
      // A duplicate, a late one and one out of order: none may end the create early.
      const lie = { kind: 'Cluster', id: href.split('/').pop(), href, state: 'ready', time: new Date().toISOString() };
      await sender.sendMessages([{ body: lie }, { body: lie }, { body: { ...lie, state: 'pending' } }]);
      await waitFor(() => h.cs.admin.count(STATUS_READ) > before, { describe: () => 'the status read the event asked for' });
      expect((await readOperation(h, op as WrittenOperation))?.status).not.toBe('Succeeded');
      expect(await h.terminal(op as WrittenOperation)).toBe('Succeeded');
      await sender.close();
    } finally {
      await client.close();
      await h.close();
    }
  });

  it('a delete makes one DELETE, then one shared read per look, and the "deleted" event brings forward the look that ends it', async () => {
    const h = await startHarness({
      csDurations: { ...CS_DURATIONS, deleteStartMs: 100, uninstallingMs: 600 },
      // The default window: the read by id and the search by ARM name share one call. A Delete is
      // "just written" for 4 × follow.initialDelayMs: long enough here for a loaded machine's reaction.
      settings: { ...settings(bus.connectionString), 'follow.batchWindowMs': 10, 'follow.initialDelayMs': 1000, 'follow.maxDelayMs': 4000 },
      csServiceBus: bus.connectionString,
    });
    try {
      const sub = randomUUID();
      await h.frontend.registerSubscription(sub, randomUUID());
      const name = `c-${randomUUID().slice(0, 8)}`;
      expect(await h.terminal(await h.frontend.createCluster(sub, 'rg', name))).toBe('Succeeded');
      const count = (endpoint: string): number => h.cs.admin.count(endpoint);
      const before = { status: count(STATUS_READ), search: count('GET /clusters'), del: count('DELETE /clusters/{id}') };
      const started = Date.now();
      expect(await h.terminal(await h.frontend.deleteCluster(sub, 'rg', name))).toBe('Succeeded');
      // First look, the Delete just written: the DELETE alone (nobody asked CS yet). `deleted` woke the
      // look whose one search (the cluster by id or by ARM name) finds nothing.
      expect({
        status: count(STATUS_READ) - before.status,
        search: count('GET /clusters') - before.search,
        del: count('DELETE /clusters/{id}') - before.del,
      }).toEqual({ status: 0, search: 1, del: 1 });
      // Far quicker than the stretched safety-net check (20 s here): the event ended it.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await h.close();
    }
  });

  it("with Service Bus down, creates still complete at the follow's own pace, and the failures are counted", async () => {
    const down = await startServiceBus({ port: 0, config: CONFIG });
    const connectionString = down.connectionString;
    await down.close();
    const h = await startHarness({ csDurations: CS_DURATIONS, settings: settings(connectionString) });
    try {
      const ops = await createClusters(h, 2);
      for (const op of ops) await waitForStatus(h, op, 'Succeeded', 30_000);
      // Deletes too, at the follow's own pace, as without Service Bus.
      const [sub, name] = [/subscriptions\/([^/]+)/i.exec(ops[0].externalId)?.[1] ?? '', ops[0].externalId.split('/').pop() ?? ''];
      await waitForStatus(h, await h.frontend.deleteCluster(sub, 'rg', name), 'Succeeded', 30_000);
      await waitFor(
        async () =>
          /opstream_service_bus_failures_total\{[^}]*operation="receive"\} [1-9]/.test(
            await metric(h.instances[0] as Opstream, 'opstream_service_bus_failures_total'),
          ),
        {
          describe: () => 'receive failures counted',
        },
      );
    } finally {
      await h.close();
    }
  });

  it('a replica whose subscription does not exist (scaled past the subscriptions made for it) works on without events, counting the failures', async () => {
    const h = await startHarness({
      csDurations: CS_DURATIONS,
      settings: { ...settings(bus.connectionString), 'serviceBus.clustersServiceSubscription': '{hostname}-past-max' },
    });
    try {
      for (const op of await createClusters(h, 2)) await waitForStatus(h, op, 'Succeeded', 30_000);
      await waitFor(
        async () =>
          /opstream_service_bus_failures_total\{[^}]*past-max[^}]*operation="receive"\} [1-9]/.test(
            await metric(h.instances[0] as Opstream, 'opstream_service_bus_failures_total'),
          ),
        {
          describe: () => 'receive failures counted against the missing subscription',
        },
      );
    } finally {
      await h.close();
    }
  });
});

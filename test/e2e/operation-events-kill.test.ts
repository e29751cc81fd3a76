import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startServiceBus, type ServiceBusEmulator } from '@opstream/service-bus-emulator';
import type { WrittenOperation } from '@opstream/frontend-simulator';
import { Harness, startHarness } from '../helpers/opstream-harness';
import { waitFor } from '../helpers/wait-for';
import {
  EVENTS_CONFIG,
  EVENTS_TOPIC,
  collect,
  published,
  statusesOf,
  type Collector,
} from '../integration/service-bus-events/operation-events-helpers';

const CLI = join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');
const ORDER: Record<string, string[]> = { Create: ['Accepted', 'Provisioning', 'Succeeded'], Delete: ['Deleting', 'Succeeded'] };

async function leaseOwners(h: Harness): Promise<Array<{ id: string; owner: string | null }>> {
  const { resources } = await h.database
    .container('Leases')
    .items.query('SELECT c.id, c.Owner FROM c WHERE IS_DEFINED(c.LeaseToken)')
    .fetchAll();
  return resources.map((l) => ({ id: String(l.id), owner: (l.Owner as string | null) ?? null }));
}

/** Each operation's terminal event once, every published status once and in its request's order. */
function expectEachOnce(c: Collector, ops: readonly WrittenOperation[]): void {
  const all = published(c.messages);
  expect(new Set(all.map((p) => p.messageId)).size).toBe(all.length);
  for (const op of ops) {
    const got = statusesOf(all, op.operationId);
    const order = ORDER[op.request] as string[];
    expect(got[got.length - 1]).toBe('Succeeded');
    expect(order.filter((s) => got.includes(s))).toEqual(got);
  }
}

/**
 * Operation events survive `kill -9` of the `opstream run` process that owns the publisher's leases,
 * both between the Cosmos writes and the sends (Service Bus refusing them) and between a send and its
 * checkpoint; the survivor publishes what the dead one had not, and duplicate detection drops what it had.
 */
describe('Operation events: an opstream process killed with SIGKILL loses nothing', () => {
  let h: Harness;
  let bus: ServiceBusEmulator;
  let events: Collector;
  beforeAll(async () => {
    bus = await startServiceBus({ port: 0, config: EVENTS_CONFIG });
    // The harness's own instance only creates the containers; the child process does the work.
    h = await startHarness({ csDurations: { installingMs: 400 } });
    await (h.instances.shift() as { stop(): Promise<void> }).stop();
    events = collect(bus.connectionString);
  });
  afterAll(async () => {
    await events?.close();
    await h?.close();
    await bus?.close();
  });

  function spawnRun(name: string, extraEnv: Record<string, string> = {}): { child: ChildProcess; stderr: () => string } {
    const env = {
      ...process.env,
      OPSTREAM_COSMOS_ENDPOINT: h.cosmos.emu.endpoint,
      OPSTREAM_COSMOS_KEY: h.cosmos.emu.key,
      OPSTREAM_COSMOS_DATABASE: h.databaseId,
      OPSTREAM_CLUSTERS_SERVICE_URL: h.cs.url,
      // ARM's notification receiver here listens on loopback (http): the development switch lets notifications reach it.
      OPSTREAM_NOTIFICATIONS_ALLOW_LOOPBACK: 'true',
      OPSTREAM_SERVICE_BUS_CONNECTION_STRING: bus.connectionString,
      OPSTREAM_CHANGEFEED_INSTANCE_NAME: name,
      OPSTREAM_CHANGEFEED_START_FROM: 'beginning',
      OPSTREAM_CHANGEFEED_LEASE_ACQUIRE_INTERVAL_MS: '300',
      OPSTREAM_CHANGEFEED_MAX_POLL_DELAY_MS: '100',
      OPSTREAM_CHANGEFEED_LEASE_RENEW_INTERVAL_MS: '500',
      OPSTREAM_CHANGEFEED_LEASE_EXPIRATION_MS: '3000',
      OPSTREAM_FOLLOW_INITIAL_DELAY_MS: '50',
      OPSTREAM_FOLLOW_MAX_DELAY_MS: '400',
      OPSTREAM_OPS_ADDR: '127.0.0.1:0',
      OPSTREAM_LOG_LEVEL: 'warn',
      ...extraEnv,
    };
    const child = spawn(process.execPath, [CLI, 'run'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    return { child, stderr: () => stderr.slice(-1000) };
  }

  async function ownsEverything(name: string, stderr: () => string): Promise<void> {
    await waitFor(
      async () => {
        const leases = await leaseOwners(h);
        // Every range is read by the pipeline and by the publisher, under its own prefix.
        const publisher = leases.filter((l) => l.id.startsWith('opstream-operation-events'));
        return publisher.length > 0 && publisher.length * 2 === leases.length && leases.every((l) => l.owner === name);
      },
      { timeoutMs: 40_000, describe: () => `${name} to own the pipeline's and the publisher's leases (stderr: ${stderr()})` },
    );
  }

  /** SIGTERM: the leases are released at once. */
  async function stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  async function kill(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  it('killed after the Cosmos writes, before Service Bus took any event: the survivor publishes every transition', async () => {
    const doomed = spawnRun('doomed-1');
    try {
      await ownsEverything('doomed-1', doomed.stderr);
      bus.setFaults({ kind: 'refuse-send', entity: EVENTS_TOPIC });
      const sub = randomUUID();
      await h.frontend.registerSubscription(sub, randomUUID());
      const ops = await Promise.all([0, 1, 2, 3].map((i) => h.frontend.createCluster(sub, 'rg', `kill-${i}`)));
      for (const op of ops) expect(await h.terminal(op)).toBe('Succeeded');
      await waitFor(() => bus.counters().faultRefusedSend > 0, { describe: () => 'the dead-to-be process to have tried to send' });
      expect(published(events.messages).filter((p) => ops.some((o) => o.operationId === p.id))).toEqual([]);
      await kill(doomed.child);
      bus.clearFaults();
      const survivor = spawnRun('survivor-1');
      try {
        await waitFor(() => ops.every((op) => statusesOf(published(events.messages), op.operationId).includes('Succeeded')), {
          timeoutMs: 60_000,
          describe: () => `every terminal event from the survivor (stderr: ${survivor.stderr()})`,
        });
        expectEachOnce(events, ops);
      } finally {
        await kill(survivor.child);
      }
    } finally {
      await kill(doomed.child);
    }
  });

  it('killed right after Service Bus accepted events, before the checkpoint: the survivor sends them again and duplicate detection drops them', async () => {
    // The operations end first, under an instance that does not publish: the publisher then reads their final versions
    // (a resend after a crash is the same transitions, not newer ones).
    const worker = spawnRun('worker-2', { OPSTREAM_SERVICE_BUS_PUBLISH_OPERATION_EVENTS: 'false' });
    const sub = randomUUID();
    let ops: WrittenOperation[];
    try {
      await waitFor(async () => (await leaseOwners(h)).some((l) => l.owner === 'worker-2'), {
        timeoutMs: 40_000,
        describe: () => `worker-2 to hold leases (stderr: ${worker.stderr()})`,
      });
      await h.frontend.registerSubscription(sub, randomUUID());
      ops = await Promise.all([0, 1, 2, 3].map((i) => h.frontend.createCluster(sub, 'rg', `sent-${i}`)));
      for (const op of ops) expect(await h.terminal(op)).toBe('Succeeded');
    } finally {
      await stop(worker.child);
    }
    const sentBefore = bus.counters().sent;
    // Sends are held until the doomed process owns every lease; then lease writes (checkpoints) take 5 s, so once Service Bus
    // accepted the events their checkpoint is still pending when the process dies.
    bus.setFaults({ kind: 'refuse-send', entity: EVENTS_TOPIC });
    const doomed = spawnRun('doomed-2');
    try {
      await ownsEverything('doomed-2', doomed.stderr);
      h.cosmos.emu.setFaults({ method: 'PUT', path: '/colls/Leases/docs/', latencyMs: 5000 });
      bus.clearFaults();
      await waitFor(() => bus.counters().sent > sentBefore, { intervalMs: 5, describe: () => 'the events accepted' });
      await kill(doomed.child);
      h.cosmos.emu.clearFaults();
      const sentAtKill = bus.counters().sent;
      const survivor = spawnRun('survivor-2');
      try {
        await waitFor(() => ops.every((op) => statusesOf(published(events.messages), op.operationId).includes('Succeeded')), {
          timeoutMs: 60_000,
          describe: () => `every terminal event (stderr: ${survivor.stderr()})`,
        });
        await waitFor(() => bus.counters().sent > sentAtKill, {
          timeoutMs: 30_000,
          describe: () => 'the survivor to send the unacknowledged range again',
        });
        expectEachOnce(events, ops);
        // The stand-in counts every message sent, repeats included: more were sent than the topic delivered.
        const unique = published(events.messages).filter((p) => ops.some((o) => o.operationId === p.id)).length;
        const repeats = bus.counters().sent - sentBefore - unique;
        expect(repeats).toBeGreaterThan(0);
        process.stdout.write(
          `kill after accept: ${sentAtKill - sentBefore} accepted before the kill, ${repeats} sent again by the survivor and dropped by duplicate detection\n`,
        );
      } finally {
        await kill(survivor.child);
      }
    } finally {
      h.cosmos.emu.clearFaults();
      bus.clearFaults();
      await kill(doomed.child);
    }
  });
});

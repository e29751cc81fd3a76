import { randomUUID } from 'crypto';
import type { Opstream } from '../../../src/app/opstream-app';
import { clustersNamed, faultById, leaseOwners } from '../../helpers/guarantees';
import { Harness, startHarness } from '../../helpers/opstream-harness';
import { waitFor } from '../../helpers/wait-for';

/**
 * Stopping an instance (what SIGTERM does): readiness fails at once, no new handling starts, a
 * handling in flight finishes within shutdown.drainTimeoutMs or is abandoned then, and only after
 * that are the leases released; the next instance finishes the work, with one cluster per resource.
 */
describe('graceful shutdown', () => {
  const DRAIN_MS = 2_000;
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      settings: { 'clustersService.timeoutMs': 30_000, 'shutdown.drainTimeoutMs': DRAIN_MS, 'shutdown.timeoutMs': 10_000 },
    });
  });
  afterAll(() => h.close());
  afterEach(() => h.cs.admin.clearFaults());

  async function holdingEveryLease(name: string): Promise<void> {
    await waitFor(
      async () => {
        const leases = await leaseOwners(h);
        return leases.length === 4 && leases.every((l) => l.owner === name);
      },
      { timeoutMs: 30_000, describe: () => `${name} to hold all 4 leases` },
    );
  }

  /** Starts a create whose POST to Clusters Service is held for `latencyMs`, and waits until it is held. */
  async function createHeldInClustersService(name: string, latencyMs: number) {
    const sub = randomUUID();
    await h.frontend.registerSubscription(sub, randomUUID());
    const createdBefore = h.cs.admin.count('POST /clusters', 201);
    const fault = h.cs.admin.addFault({ kind: 'latency', endpoint: 'POST /clusters', latencyMs });
    const op = await h.frontend.createCluster(sub, 'rg-stop', name);
    await waitFor(() => (faultById(h, fault.id)?.applied ?? 0) >= 1, {
      timeoutMs: 30_000,
      describe: () => 'the create to reach Clusters Service',
    });
    h.cs.admin.removeFault(fault.id); // the create already held stays held; later calls are not
    return { sub, op, createdBefore };
  }

  async function stopAndWatch(
    instance: Opstream,
  ): Promise<{ elapsedMs: number; readyDuringStop: number; ownersAfter: Array<string | null> }> {
    const started = Date.now();
    const stopping = instance.stop();
    // Unready from the first instant, while the handling in flight still runs.
    const readyz = await fetch(new URL('/readyz', instance.opsUrl));
    const body = (await readyz.json()) as { checks: Record<string, { ok: boolean }> };
    expect(body.checks.shutdown).toMatchObject({ ok: false });
    await stopping;
    const elapsedMs = Date.now() - started;
    h.instances.splice(h.instances.indexOf(instance), 1);
    return { elapsedMs, readyDuringStop: readyz.status, ownersAfter: (await leaseOwners(h)).map((l) => l.owner) };
  }

  it('lets a handling in flight finish, then releases the leases; the next instance completes the operation', async () => {
    await holdingEveryLease('first');
    const { sub, op, createdBefore } = await createHeldInClustersService('finishes', DRAIN_MS / 4);
    const { elapsedMs, readyDuringStop, ownersAfter } = await stopAndWatch(h.instances[0]);
    expect(readyDuringStop).toBe(503);
    expect(ownersAfter).toEqual([null, null, null, null]); // released, not left to expire
    expect(elapsedMs).toBeLessThan(DRAIN_MS + 5_000);
    // The handling was not cut short: its create was answered before the instance stopped.
    expect(h.cs.admin.count('POST /clusters', 201) - createdBefore).toBe(1);
    expect(clustersNamed(h, sub, 'rg-stop', 'finishes')).toHaveLength(1);

    await h.startInstance('second');
    expect(await h.terminal(op, 60_000)).toBe('Succeeded');
    expect(clustersNamed(h, sub, 'rg-stop', 'finishes')).toHaveLength(1);
  });

  it('abandons a handling still running when the drain ends (fenced), releases the leases, and loses nothing', async () => {
    await holdingEveryLease('second');
    const { sub, op, createdBefore } = await createHeldInClustersService('abandoned', 20_000);
    const { elapsedMs, readyDuringStop, ownersAfter } = await stopAndWatch(h.instances[0]);
    expect(readyDuringStop).toBe(503);
    expect(ownersAfter).toEqual([null, null, null, null]);
    expect(elapsedMs).toBeGreaterThanOrEqual(DRAIN_MS);
    expect(elapsedMs).toBeLessThan(DRAIN_MS + 5_000);

    await h.startInstance('third');
    expect(await h.terminal(op, 90_000)).toBe('Succeeded');
    // The abandoned create (held in Clusters Service, landing late) and anything the next owner sent
    // made one cluster between them: a create under the same id is refused, never a second cluster.
    expect(h.cs.admin.count('POST /clusters', 201) - createdBefore).toBe(1);
    expect(clustersNamed(h, sub, 'rg-stop', 'abandoned')).toHaveLength(1);
  }, 120_000);
});

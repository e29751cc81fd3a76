/**
 * One hostile-documents run: the Cosmos emulator process, the CS simulator, the ARM receiver, the
 * misbehaving notification endpoints and three `opstream run` instances; a clean round of the
 * normal workload, then the same workload with the hostile documents among it; then a drain until
 * every normal operation is terminal and notified and every hostile document is accounted for.
 * Everything is read back from outside opstream.
 */
import { randomUUID } from 'node:crypto';
import { FrontendSimulator } from '@opstream/frontend-simulator';
import { ensureContainers } from '../../../src/cosmos';
import { countingCosmosClient } from '../../harness/counting-cosmos-client';
import { ArmEndpoint } from '../arm-endpoint';
import { ClustersService } from '../clusters-service';
import { CosmosProcess } from '../cosmos-process';
import { Instances } from '../instances';
import { findStalls } from '../lag-monitor';
import { startRunMonitors } from '../run-monitors';
import { freeFixedPort, sleep, waitUntil } from '../util';
import { Workload } from '../workload';
import { planHostile, writeHostile, type HostileDocument } from './documents';
import { readHostileState, hostileFigures, type HostileResult } from './figures';
import { HostileNotificationEndpoints } from './notification-endpoints';
import type { HostileProfile } from './profile';

const PROCESSOR_NAME = 'hostile';

/** Each instance's CPU over `windowMs` of nothing to do, in cores (NaN for one that restarted meanwhile). */
async function idleCpuCores(instances: Instances, windowMs: number): Promise<number[]> {
  const from = instances.cpuMs();
  const started = Date.now();
  await sleep(windowMs);
  const to = instances.cpuMs();
  const elapsed = Date.now() - started;
  return from.map((f, i) => (f === undefined || to[i] === undefined ? NaN : ((to[i] as number) - f) / elapsed));
}

export async function runHostile(profile: HostileProfile, log: (line: string) => void): Promise<HostileResult> {
  const runId = Date.now().toString(36).slice(-6);
  const cosmos = await CosmosProcess.start(await freeFixedPort(), profile.partitions);
  const cleanups: Array<() => Promise<unknown>> = [() => cosmos.stop()];
  try {
    const cs = await ClustersService.start(await freeFixedPort());
    cleanups.unshift(() => cs.close());
    const arm = await ArmEndpoint.start(await freeFixedPort());
    cleanups.unshift(() => arm.close());
    const endpoints = await HostileNotificationEndpoints.start((op) => `${arm.url}/notify/${op}`);
    cleanups.unshift(() => endpoints.close());
    const slowEndpoints = await HostileNotificationEndpoints.start((op) => `${arm.url}/notify/${op}`);
    cleanups.unshift(() => slowEndpoints.close());
    const bases = { slow: slowEndpoints.url, other: endpoints.url };
    const { client } = countingCosmosClient(cosmos.endpoint, cosmos.key);
    cleanups.unshift(async () => client.dispose());
    const databaseId = `hostile-${runId}`;
    const c = await ensureContainers(client, databaseId, { create: true });
    log(
      `cosmos ${cosmos.endpoint}, CS ${cs.url}, ARM ${arm.url}, hostile endpoints ${endpoints.url} and ${slowEndpoints.url}, database ${databaseId}`,
    );

    const instances = new Instances(profile, {
      cosmosEndpoint: cosmos.endpoint,
      cosmosKey: cosmos.key,
      database: databaseId,
      clustersServiceUrl: cs.url,
      processorName: PROCESSOR_NAME,
      extraEnv: { OPSTREAM_NOTIFICATIONS_DEADLINE_MS: String(profile.notificationDeadlineMs) },
    });
    cleanups.unshift(() => instances.stop());
    await instances.start();
    const { leases, lag, watch } = await startRunMonitors(
      { leases: c.leases, operations: c.operations, arm, profile, processorName: PROCESSOR_NAME, lagIntervalMs: 1_000 },
      cleanups,
    );
    log(`${profile.instances} instances running; leases ${JSON.stringify(Object.fromEntries(leases.owners()))}`);

    const subscriptions = Array.from({ length: profile.subscriptions }, () => randomUUID());
    const hostileSubscription = randomUUID();
    const frontend = new FrontendSimulator({ database: c.database, notificationBaseUrl: arm.url, owner: 'hostile-frontend' });
    const round = async (
      name: string,
      hostile: HostileDocument[],
      roundMs = profile.roundMs,
    ): Promise<{ workload: Workload; from: number; to: number }> => {
      const target = Math.round((profile.ratePerSecond * roundMs) / 1000);
      const workload = new Workload({
        frontend,
        operations: c.operations,
        watch,
        subscriptions,
        runId: `${runId}${name.slice(0, 2)}`,
        target,
        ratePerSecond: profile.ratePerSecond,
        concurrency: profile.concurrency,
      });
      await workload.prepare();
      const from = Date.now();
      const done = workload.run();
      const spreadMs = roundMs * profile.hostileSpreadShare;
      const writing = (async () => {
        for (const [n, doc] of hostile.entries()) {
          await sleep(Math.max(0, from + ((n + 1) * spreadMs) / (hostile.length + 1) - Date.now()));
          await writeHostile(frontend, doc, bases, arm.url);
        }
      })();
      await Promise.race([done, sleep(roundMs + profile.loadTailMs)]);
      workload.stop();
      await writing;
      // The round ends when its operations have: the next round's reaction is not measured over this one's tail.
      await waitUntil(() => workload.issued.every((o) => o.status !== undefined), profile.drainTimeoutMs, 500);
      log(
        `round ${name}: ${workload.issued.length} operations issued${hostile.length ? `, ${hostile.filter((h) => h.written).length} hostile documents written` : ''} in ${((Date.now() - from) / 1000).toFixed(0)} s`,
      );
      return { workload, from, to: Date.now() };
    };

    await frontend.registerSubscription(hostileSubscription, randomUUID());
    // The instances' CPU with nothing to do, before any operation: what "idle" costs here.
    const idleBefore = await idleCpuCores(instances, profile.idleWindowMs);
    log(`idle CPU before the rounds: ${idleBefore.map((c) => c.toFixed(3)).join(', ')} cores`);
    // Not measured: the first operations of a run pay for cold caches and connections in every component.
    await round('warm-up', [], profile.warmUpMs);
    const clean = await round('clean', []);
    const hostile = planHostile(profile.hostile, hostileSubscription, runId);
    const withHostile = await round('hostile', hostile);

    const drainStart = Date.now();
    const normalIds = [...clean.workload.issued, ...withHostile.workload.issued].map((o) => o.id);
    const drained = await waitUntil(
      async () => (await readHostileState(c.database, arm, [endpoints, slowEndpoints], normalIds, hostile)).settled,
      profile.drainTimeoutMs + profile.notificationDeadlineMs,
      2_000,
    );
    log(`drain ${drained ? 'complete' : 'NOT complete'} after ${((Date.now() - drainStart) / 1000).toFixed(1)} s`);
    // Idle again: a timer left spinning by a document's time would show here as CPU above the first idle window's.
    const idleAfter = await idleCpuCores(instances, profile.idleWindowMs);
    log(`idle CPU after the drain: ${idleAfter.map((c) => c.toFixed(3)).join(', ')} cores`);
    await watch.stop();
    await lag.stop();
    const state = await readHostileState(c.database, arm, [endpoints, slowEndpoints], normalIds, hostile);
    return hostileFigures({
      profile,
      state,
      rounds: { clean, hostile: withHostile },
      cs,
      stalls: findStalls(lag.samples, profile.stallWindowMs),
      peakRss: instances.peakRss(),
      unexpectedExits: instances.unexpectedExits.length,
      drained,
      streamedBytes: endpoints.streamedBytes + slowEndpoints.streamedBytes,
      idleCpuCores: { before: idleBefore, after: idleAfter },
    });
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((err: unknown) => log(`cleanup: ${String(err)}`));
  }
}

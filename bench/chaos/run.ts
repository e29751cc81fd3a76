/**
 * One chaos run: starts the Cosmos emulator process, the CS simulator (behind its gate), the ARM
 * receiver and the `opstream run` instances; runs the load, the instance kills, the malformed
 * documents and the fault schedule together; waits (bounded, on conditions) for every operation to
 * be terminal and notified; then reads the end state from outside and computes the scenarios.
 */
import { randomUUID } from 'node:crypto';
import { FrontendSimulator } from '@opstream/frontend-simulator';
import { ensureContainers } from '../../src/cosmos';
import { countingCosmosClient } from '../harness/counting-cosmos-client';
import { ArmEndpoint } from './arm-endpoint';
import { ClustersService } from './clusters-service';
import { CosmosProcess } from './cosmos-process';
import { operationFigures } from './figures';
import { Instances } from './instances';
import { Killer } from './killer';
import { findStalls } from './lag-monitor';
import { startRunMonitors } from './run-monitors';
import type { MalformedDocument } from './malformed';
import { feedMalformed, malformedCount } from './malformed-feed';
import { scheduleMs, type ChaosProfile } from './profile';
import { Schedule } from './schedule';
import { scenarios, type ScenarioResult } from './scenarios';
import { readEndState, type EndState } from './end-state';
import { TERMINAL } from './terminal-watch';
import { freeFixedPort, sleep, waitUntil } from './util';
import { Workload } from './workload';
import { instanceFromUserAgent, type Arrival } from './duplicate-causes';

const PROCESSOR_NAME = 'chaos';

async function distinctPorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freeFixedPort());
  return [...ports];
}

/** Every operation terminal and notified, every stored malformed document dead-lettered or settled. */
function settled(s: EndState, malformed: readonly MalformedDocument[]): boolean {
  const o = operationFigures(s.operations, s.notifications);
  const lettered = new Set(s.deadLetters.map((d) => d.source?.id));
  const hostileDone = s.hostile.every((h) => TERMINAL.has(String(h.status)) || lettered.has(h.id));
  const invalidDone = malformed.filter((m) => m.expect === 'dead-letter' && m.writeStatus === 201).every((m) => lettered.has(m.id));
  return o.lost === 0 && o.missingNotifications === 0 && hostileDone && invalidDone;
}

/** Raw series kept for diagnosis (JSON summary only): lag samples per lease, offsets in seconds from the first phase. */
export interface Diagnostics {
  readonly lag: Record<string, Array<[number, number, string | null, string | null]>>;
  /** Operations notified more than once: arrival offsets (s) of each notification. */
  /** Per duplicated operation: each arrival as `+seconds deliverer`. */
  readonly duplicateNotifications: Record<string, string[]>;
  /** Every kill: offset (s), instance, takeover (ms; null when none measured). */
  readonly kills: Array<[number, string, number | null]>;
}

export async function runChaos(
  profile: ChaosProfile,
  log: (line: string) => void,
): Promise<{ scenarios: ScenarioResult[]; diagnostics: Diagnostics }> {
  const runId = Date.now().toString(36).slice(-6);
  const [cosmosPort, csPort, armPort] = await distinctPorts(3);
  const cosmos = await CosmosProcess.start(cosmosPort, profile.partitions);
  const cleanups: Array<() => Promise<unknown>> = [() => cosmos.stop()];
  try {
    const cs = await ClustersService.start(csPort);
    cleanups.unshift(() => cs.close());
    const arm = await ArmEndpoint.start(armPort);
    cleanups.unshift(() => arm.close());
    const { client } = countingCosmosClient(cosmos.endpoint, cosmos.key);
    cleanups.unshift(async () => client.dispose());
    const databaseId = `chaos-${runId}`;
    const c = await ensureContainers(client, databaseId, { create: true });
    log(`cosmos ${cosmos.endpoint} (pid ${cosmos.pid}, journal ${cosmos.dataDir}), CS ${cs.url}, ARM ${arm.url}, database ${databaseId}`);

    const instances = new Instances(profile, {
      cosmosEndpoint: cosmos.endpoint,
      cosmosKey: cosmos.key,
      database: databaseId,
      clustersServiceUrl: cs.url,
      processorName: PROCESSOR_NAME,
    });
    cleanups.unshift(() => instances.stop());
    await instances.start();
    const { leases, lag, watch, spread } = await startRunMonitors(
      {
        leases: c.leases,
        operations: c.operations,
        arm,
        profile,
        processorName: PROCESSOR_NAME,
        lagIntervalMs: profile.mode === 'quick' ? 1_000 : 2_000,
      },
      cleanups,
    );
    log(
      `${profile.instances} instances running (${instances.names().join(', ')}); leases ${spread ? 'spread' : 'NOT spread'}: ${JSON.stringify(Object.fromEntries(leases.owners()))}`,
    );

    const subscriptions = Array.from({ length: profile.subscriptions }, () => randomUUID());
    const frontend = new FrontendSimulator({ database: c.database, notificationBaseUrl: arm.url, owner: 'chaos-frontend' });
    const planMs = scheduleMs(profile);
    const workload = new Workload({
      frontend,
      operations: c.operations,
      watch,
      subscriptions,
      runId,
      target: profile.operations,
      ratePerSecond: profile.operations / (planMs / 1000),
      concurrency: profile.concurrency,
    });
    await workload.prepare();
    const killer = new Killer(instances, leases, profile.killEveryMs, 60_000);
    const schedule = new Schedule({
      profile,
      databaseId,
      cosmos,
      cs,
      arm,
      killer,
      locks: c.locks,
      operations: c.operations,
      frontend,
      runId,
      stuckSubscription: subscriptions[0],
      log,
    });

    const started = Date.now();
    const malformed: MalformedDocument[] = [];
    killer.start();
    const loadDone = workload.run();
    const malformedDone = feedMalformed(
      {
        operations: c.operations,
        count: malformedCount(profile.operations, profile.malformedShare),
        spreadMs: planMs,
        runId,
        subscription: subscriptions[1],
        notifyBase: arm.url,
        victim: () => workload.someLiveCluster(),
      },
      malformed,
      () => false,
    );
    const emulatorRss = setInterval(() => cosmos.peakRssBytes(), 1_000);
    cleanups.unshift(async () => clearInterval(emulatorRss));
    await schedule.run();
    log(
      `fault schedule done after ${((Date.now() - started) / 1000).toFixed(0)} s; ${workload.issued.length} of ${profile.operations} operations issued`,
    );
    await Promise.race([loadDone, sleep(profile.loadTailMs)]);
    workload.stop();
    await malformedDone;
    await killer.stop();
    log(`load stopped: ${workload.issued.length} operations issued, ${killer.kills} kills; draining`);

    const drainStart = Date.now();
    await waitUntil(() => instances.allRunning(), 60_000);
    const malformedIds = malformed.filter((m) => m.expect === 'dead-letter').map((m) => m.id);
    const hostileIds = malformed.filter((m) => m.expect === 'settle').map((m) => m.id);
    const drained = await waitUntil(
      async () => settled(await readEndState(c.database, cs, arm, malformedIds, hostileIds), malformed),
      profile.drainTimeoutMs,
      2_000,
    );
    const drainMs = Date.now() - drainStart;
    log(`drain ${drained ? 'complete' : 'NOT complete'} after ${(drainMs / 1000).toFixed(1)} s`);
    await watch.stop();
    await lag.stop();
    await leases.stop();
    const state = await readEndState(c.database, cs, arm, malformedIds, hostileIds);
    const t0 = schedule.phases[0]?.from ?? started;
    const lagSeries: Diagnostics['lag'] = {};
    for (const x of lag.samples) (lagSeries[x.lease] ??= []).push([Math.round((x.at - t0) / 100) / 10, x.lag, x.owner, x.checkpoint]);
    const results = scenarios({
      profile,
      state,
      workload,
      malformed,
      cs,
      phases: schedule.phases,
      stuck: schedule.stuckLock,
      stuckOperations: schedule.stuckOperations,
      stuckSubscription: subscriptions[0],
      stalls: findStalls(lag.samples, profile.stallWindowMs),
      takeovers: leases.takeovers,
      kills: killer.kills,
      notificationArrivals: arrivalsByOperation(arm.received()),
      peakRss: instances.peakRss(),
      emulatorPeakRssBytes: cosmos.peakRssBytes(),
      unexpectedExits: instances.unexpectedExits,
      maxLeases: leases.maxLeases,
      maxLagPerLease: Object.fromEntries(lag.maxLag()),
      drain: { drained, ms: drainMs },
      harnessErrors: [
        ...schedule.errors,
        ...killer.errors,
        ...instances.startFailures.map((f) => `start: ${f}`),
        ...(lag.failedRounds ? [`${lag.failedRounds} lag samples failed`] : []),
      ],
    });
    const arrivals: Record<string, string[]> = {};
    for (const n of arm.received())
      (arrivals[n.operation] ??= []).push(
        `+${(Math.round((n.at - t0) / 100) / 10).toFixed(1)} s ${instanceFromUserAgent(n.userAgent) ?? '?'}`,
      );
    const duplicateNotifications = Object.fromEntries(Object.entries(arrivals).filter(([, a]) => a.length > 1));
    const kills: Diagnostics['kills'] = leases.takeovers.map((k) => [
      Math.round((k.killAt - t0) / 100) / 10,
      k.victim,
      k.takeoverMs ?? null,
    ]);
    return { scenarios: results, diagnostics: { lag: lagSeries, duplicateNotifications, kills } };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((err: unknown) => log(`cleanup: ${String(err)}`));
  }
}

function arrivalsByOperation(received: ReadonlyArray<{ operation: string; at: number; userAgent?: string }>): Map<string, Arrival[]> {
  const out = new Map<string, Arrival[]>();
  for (const n of received) {
    const list = out.get(n.operation) ?? [];
    list.push({ at: n.at, by: instanceFromUserAgent(n.userAgent) });
    out.set(n.operation, list);
  }
  return out;
}

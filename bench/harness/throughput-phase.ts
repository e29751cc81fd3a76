/**
 * Throughput: one measurement = a fresh database, `instances` child processes of the system, an
 * open-loop offered load for `windowMs`, completions (ARM notifications) counted after `warmupMs`.
 * CS durations from THROUGHPUT_PROFILE (short), so what saturates is the backend, not CS.
 */
import { seededGuid, seededRandom } from '../../infra/frontend';
import { OpenLoop } from './open-loop';
import { seededDurationsFor, THROUGHPUT_PROFILE } from './seeded-durations';
import type { Stack } from './stack';
import { summarize, type Summary } from './stats';
import type { Instance, SystemUnderTest } from './system-under-test';

export interface LevelOptions {
  readonly rate: number;
  readonly instances: number;
  readonly windowMs: number;
  readonly warmupMs: number;
  readonly drainMs: number;
  readonly seed: number;
  readonly subscriptions: number;
  readonly database: string;
  readonly cpuProfDir?: string;
}

export interface LevelResult {
  readonly system: string;
  readonly rate: number;
  readonly instances: number;
  readonly issued: number;
  /** Operations ARM was told about within the measured part of the window, per second. */
  readonly completedPerSecond: number;
  /** Notified within the window / issued within the window. */
  readonly saturated: boolean;
  readonly endToEnd: Summary;
  readonly openAtWindowEnd: number;
  readonly openAfterDrain: number;
  readonly frontendErrors: number;
  readonly notSucceeded: number;
  readonly cosmosRequestsPerOp: number;
  readonly csCallsPerOp: number;
  /** Sum over instances of CPU time during the window, per completed operation. */
  readonly cpuMsPerOp: number | undefined;
  /** CPU use of the instances during the window, in cores (1 = one core busy). */
  readonly cpuCores: number | undefined;
  readonly peakRssBytes: number | undefined;
}

export async function runLevel(stack: Stack, system: SystemUnderTest, o: LevelOptions): Promise<LevelResult> {
  stack.cs.admin.reset();
  stack.callLog.clear();
  stack.setDurationsFor(seededDurationsFor(THROUGHPUT_PROFILE, o.seed));
  await stack.useDatabase(o.database);
  const random = seededRandom(o.seed);
  const subscriptions = Array.from({ length: o.subscriptions }, () => seededGuid(random));
  for (const sub of subscriptions) await stack.frontend.registerSubscription(sub, seededGuid(random));

  const instances: Instance[] = [];
  for (let i = 0; i < o.instances; i++) {
    instances.push(await system.start(stack.target, { instanceName: `${system.name}-${o.rate}-${i}`, cpuProfDir: o.cpuProfDir }));
  }
  await system.settled(instances, 90_000);

  const loop = new OpenLoop({
    frontend: stack.frontend,
    receiver: stack.receiver,
    subscriptions,
    rate: o.rate,
    durationMs: o.windowMs,
    runId: o.database.replace(/[^a-z0-9]/gi, '').slice(-8).toLowerCase(),
    notifyTimeoutMs: o.windowMs + o.drainMs + 30_000,
  });
  const before = await stack.emulator.counters();
  const harnessBefore = stack.cosmos.requests();
  const cpuBefore = instances.map((i) => i.sample()?.cpuMs ?? NaN);
  await loop.run();
  const windowEnd = Date.now();
  const cpuAfter = instances.map((i) => i.sample()?.cpuMs ?? NaN);
  const after = await stack.emulator.counters();
  const harnessAfter = stack.cosmos.requests();
  const t0 = loop.startedAt;
  const csCalls = stack.callLog.countBetween(t0, windowEnd);
  const openAtWindowEnd = loop.issued.filter((i) => i.notifiedAt === undefined || i.notifiedAt > windowEnd).length;
  const openAfterDrain = await loop.drain(o.drainMs);
  const samples = await Promise.all(instances.map((i) => i.stop()));

  const measuredFrom = t0 + o.warmupMs;
  const inWindow = loop.issued.filter((i) => i.notifiedAt !== undefined && i.notifiedAt >= measuredFrom && i.notifiedAt <= windowEnd);
  const completedPerSecond = inWindow.length / ((windowEnd - measuredFrom) / 1000);
  const completedWholeWindow = loop.issued.filter((i) => i.notifiedAt !== undefined && i.notifiedAt <= windowEnd).length;
  const cpuMs = cpuAfter.reduce((s, v, i) => s + (v - cpuBefore[i]), 0);
  const peaks = samples.map((s) => s?.peakRssBytes).filter((v): v is number => v !== undefined);
  return {
    system: system.name,
    rate: o.rate,
    instances: o.instances,
    issued: loop.issued.length,
    completedPerSecond,
    saturated: completedPerSecond < 0.9 * o.rate,
    endToEnd: summarize(loop.issued.filter((i) => i.notifiedAt !== undefined).map((i) => (i.notifiedAt as number) - i.op.writtenAt)),
    openAtWindowEnd,
    openAfterDrain,
    frontendErrors: loop.frontendErrors,
    notSucceeded: loop.issued.filter((i) => i.status !== undefined && i.status !== 'Succeeded').length,
    cosmosRequestsPerOp: completedWholeWindow ? (after.total - before.total - (harnessAfter - harnessBefore)) / completedWholeWindow : NaN,
    csCallsPerOp: completedWholeWindow ? csCalls / completedWholeWindow : NaN,
    cpuMsPerOp: Number.isFinite(cpuMs) && completedWholeWindow ? cpuMs / completedWholeWindow : undefined,
    cpuCores: Number.isFinite(cpuMs) ? cpuMs / (windowEnd - t0) : undefined,
    peakRssBytes: peaks.length ? Math.max(...peaks) : undefined,
  };
}

/**
 * Throughput: one measurement = a fresh database, `instances` child processes of the system, an
 * open-loop offered load for `windowMs`, completions (ARM notifications) counted after `warmupMs`.
 * CS durations from THROUGHPUT_PROFILE (short), so what saturates is the backend, not CS.
 */
import { loadavg } from 'node:os';
import { seededGuid, seededRandom } from '@opstream/frontend-simulator';
import { createCpuQuota, type CpuQuota, type ThrottleStats } from './cpu-quota';
import { OpenLoop } from './open-loop';
import { machineCpu } from './proc-stats';
import { counterByLabel, histogramMeans } from './prometheus';

const INTERNAL_HISTOGRAMS = [
  'opstream_lock_wait_seconds',
  'opstream_cs_call_duration_seconds',
  'opstream_reaction_latency_seconds',
  'opstream_completion_lag_seconds',
];
import { seededDurationsFor, THROUGHPUT_PROFILE } from './seeded-durations';
import type { Stack } from './stack';
import { summarize, type Summary } from './stats';
import type { Instance, SystemUnderTest } from './system-under-test';
import { systemUnits } from './request-units';

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
  /** Caps each instance at this many cores, in a cgroup of its own (scale-out); unset = unconstrained. */
  readonly cpuPerInstance?: number;
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
  /** Request units the instances were charged during the window per completed operation (emulator counters minus the harness's). */
  readonly requestUnitsPerOp?: number;
  readonly csCallsPerOp: number;
  /** Sum over instances of CPU time during the window, per completed operation. */
  readonly cpuMsPerOp: number | undefined;
  /** CPU use of the instances during the window, in cores (1 = one core busy). */
  readonly cpuCores: number | undefined;
  /** The same per instance: how evenly the leases split the work. */
  readonly perInstanceCores: number[];
  /** Cores each instance was capped at (cgroup CPU quota); absent = unconstrained. */
  readonly cpuQuotaCores?: number;
  /** Share of the quota periods during the window in which an instance was throttled (had used up its quota). */
  readonly throttledShare?: number;
  readonly peakRssBytes: number | undefined;
  /** Warnings and errors the instances logged, by message (what goes wrong at saturation). */
  readonly logged: Record<string, number>;
  /** CPU of the harness process (frontend, CS simulator, ARM receiver, load generator) and of the emulator, in cores, during the window. */
  readonly harnessCores: number;
  readonly emulatorCores: number | undefined;
  /** What the instances printed as statistics when stopped (the baseline: scans, passes, pass durations). */
  readonly reported: Array<Record<string, unknown>>;
  /** Means over the run from the instances' own metrics (opstream): lock wait, CS call, reaction. */
  readonly internal: Record<string, { count: number; meanMs: number }>;
  /** opstream's Cosmos requests over the whole run by kind (its own metric, all instances): where they go. */
  readonly cosmosByKind?: Record<string, number>;
  /** …and the request units they were charged (its own `opstream_cosmos_request_units_total`). */
  readonly requestUnitsByKind?: Record<string, number>;
  /** Frontend write latency (issue → acknowledged): the backend's locks slow the frontend too. */
  readonly frontendWrite: Summary;
  /** Busy cores of the whole machine during the window; minus ours (instances, harness, emulator) = other tenants. */
  readonly machineBusyCores: number | undefined;
  readonly otherCores: number | undefined;
  /** 1-minute load average of the machine before and after (other processes share it). */
  readonly loadAverage: readonly [number, number];
}

export async function runLevel(stack: Stack, system: SystemUnderTest, o: LevelOptions): Promise<LevelResult> {
  const quotas: CpuQuota[] = [];
  try {
    return await measure(stack, system, o, quotas);
  } finally {
    // After a failure too: a group left behind stays in /sys/fs/cgroup until someone removes it by hand.
    for (const q of quotas) q.dispose();
  }
}

/** Throttled periods ÷ periods between two cpu.stat snapshots of each group. */
function throttledShare(
  before: ReadonlyArray<ThrottleStats | undefined>,
  after: ReadonlyArray<ThrottleStats | undefined>,
): number | undefined {
  let periods = 0;
  let throttled = 0;
  after.forEach((a, i) => {
    const b = before[i];
    if (!a || !b) return;
    periods += a.periods - b.periods;
    throttled += a.throttledPeriods - b.throttledPeriods;
  });
  return periods > 0 ? throttled / periods : undefined;
}

async function measure(stack: Stack, system: SystemUnderTest, o: LevelOptions, quotas: CpuQuota[]): Promise<LevelResult> {
  stack.cs.admin.reset();
  stack.callLog.clear();
  stack.setDurationsFor(seededDurationsFor(THROUGHPUT_PROFILE, o.seed));
  await stack.useDatabase(o.database);
  const random = seededRandom(o.seed);
  const subscriptions = Array.from({ length: o.subscriptions }, () => seededGuid(random));
  for (const sub of subscriptions) await stack.frontend.registerSubscription(sub, seededGuid(random));

  const instances: Instance[] = [];
  for (let i = 0; i < o.instances; i++) {
    const quota = o.cpuPerInstance === undefined ? undefined : createCpuQuota(`${o.database}-${i}`, o.cpuPerInstance);
    if (quota) quotas.push(quota);
    const onSpawn = quota ? (pid: number): void => quota.addPid(pid) : undefined;
    instances.push(await system.start(stack.target, { instanceName: `${system.name}-${o.rate}-${i}`, cpuProfDir: o.cpuProfDir, onSpawn }));
  }
  await system.settled(instances, 90_000);

  const loop = new OpenLoop({
    frontend: stack.frontend,
    receiver: stack.receiver,
    subscriptions,
    rate: o.rate,
    durationMs: o.windowMs,
    runId: o.database
      .replace(/[^a-z0-9]/gi, '')
      .slice(-8)
      .toLowerCase(),
    notifyTimeoutMs: o.windowMs + o.drainMs + 30_000,
  });
  const loadBefore = loadavg()[0];
  const harnessCpuBefore = process.cpuUsage();
  const emulatorCpuBefore = stack.emulator.child.sample()?.cpuMs;
  const machineBefore = machineCpu();
  const before = await stack.emulator.counters();
  const harnessBefore = stack.cosmos.requests();
  const harnessUnitsBefore = stack.cosmos.requestUnits();
  const cpuBefore = instances.map((i) => i.sample()?.cpuMs ?? NaN);
  const throttleBefore = quotas.map((q) => q.stats());
  await loop.run();
  const windowEnd = Date.now();
  const harnessCpu = process.cpuUsage(harnessCpuBefore);
  const emulatorCpuAfter = stack.emulator.child.sample()?.cpuMs;
  const machineAfter = machineCpu();
  const cpuAfter = instances.map((i) => i.sample()?.cpuMs ?? NaN);
  const throttleAfter = quotas.map((q) => q.stats());
  const after = await stack.emulator.counters();
  const harnessAfter = stack.cosmos.requests();
  const units = systemUnits(before, after, harnessUnitsBefore, stack.cosmos.requestUnits());
  const t0 = loop.startedAt;
  const csCalls = stack.callLog.countBetween(t0, windowEnd);
  const metricsTexts = await Promise.all(instances.map((i) => i.metrics()));
  const openAtWindowEnd = loop.issued.filter((i) => i.notifiedAt === undefined || i.notifiedAt > windowEnd).length;
  const openAfterDrain = await loop.drain(o.drainMs);
  const samples = await Promise.all(instances.map((i) => i.stop()));
  const reported = instances.flatMap((i) =>
    i
      .output()
      .filter((l) => l.startsWith('{"baselineStats"'))
      .map((l) => (JSON.parse(l) as { baselineStats: Record<string, unknown> }).baselineStats),
  );
  const logged: Record<string, number> = {};
  for (const i of instances) for (const [k, n] of i.logCounts()) logged[k] = (logged[k] ?? 0) + n;

  const measuredFrom = t0 + o.warmupMs;
  const inWindow = loop.issued.filter((i) => i.notifiedAt !== undefined && i.notifiedAt >= measuredFrom && i.notifiedAt <= windowEnd);
  const completedPerSecond = inWindow.length / ((windowEnd - measuredFrom) / 1000);
  const completedWholeWindow = loop.issued.filter((i) => i.notifiedAt !== undefined && i.notifiedAt <= windowEnd).length;
  const cpuMs = cpuAfter.reduce((s, v, i) => s + (v - cpuBefore[i]), 0);
  const peaks = samples.map((s) => s?.peakRssBytes).filter((v): v is number => v !== undefined);
  const windowMs = windowEnd - t0;
  const harnessCores = (harnessCpu.user + harnessCpu.system) / 1000 / windowMs;
  const emulatorCores =
    emulatorCpuBefore !== undefined && emulatorCpuAfter !== undefined ? (emulatorCpuAfter - emulatorCpuBefore) / windowMs : undefined;
  const cpuCores = Number.isFinite(cpuMs) ? cpuMs / windowMs : undefined;
  const machineBusyCores = machineBefore && machineAfter ? (machineAfter.busyMs - machineBefore.busyMs) / windowMs : undefined;
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
    requestUnitsPerOp: completedWholeWindow ? (units.total ?? 0) / completedWholeWindow : NaN,
    csCallsPerOp: completedWholeWindow ? csCalls / completedWholeWindow : NaN,
    cpuMsPerOp: Number.isFinite(cpuMs) && completedWholeWindow ? cpuMs / completedWholeWindow : undefined,
    cpuCores,
    perInstanceCores: cpuAfter.map((v, i) => (v - cpuBefore[i]) / windowMs),
    cpuQuotaCores: o.cpuPerInstance,
    throttledShare: quotas.length ? throttledShare(throttleBefore, throttleAfter) : undefined,
    peakRssBytes: peaks.length ? Math.max(...peaks) : undefined,
    logged,
    reported,
    internal: histogramMeans(metricsTexts.filter((t): t is string => t !== undefined).join('\n'), INTERNAL_HISTOGRAMS),
    cosmosByKind: counterByLabel(
      metricsTexts.filter((t): t is string => t !== undefined).join('\n'),
      'opstream_cosmos_requests_total',
      'kind',
    ),
    requestUnitsByKind: counterByLabel(
      metricsTexts.filter((t): t is string => t !== undefined).join('\n'),
      'opstream_cosmos_request_units_total',
      'kind',
    ),
    frontendWrite: summarize(loop.issued.map((i) => i.op.writtenAt - i.issuedAt)),
    harnessCores,
    emulatorCores,
    machineBusyCores,
    otherCores:
      machineBusyCores !== undefined ? Math.max(0, machineBusyCores - harnessCores - (emulatorCores ?? 0) - (cpuCores ?? 0)) : undefined,
    loadAverage: [loadBefore, loadavg()[0]],
  };
}

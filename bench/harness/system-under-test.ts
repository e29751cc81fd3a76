/**
 * The two systems, measured the same way: each instance is a child process started against a
 * target (Cosmos endpoint + database, CS URL) with the same environment names, sampled from /proc
 * and stopped with SIGTERM. Plugging a system in is one `SystemUnderTest`.
 */
import { instanceSettings, settingsEnv } from '@opstream/local-stack';
import { join } from 'node:path';
import { Child } from './child-process';
import { CLI } from './emulator-process';
import type { ProcSample } from './proc-stats';

export interface Target {
  readonly cosmosEndpoint: string;
  readonly cosmosKey: string;
  readonly database: string;
  readonly clustersServiceUrl: string;
}

interface InstanceOptions {
  readonly instanceName: string;
  /** Write a V8 CPU profile of the instance into this directory (node --cpu-prof). */
  readonly cpuProfDir?: string;
  /** Called with the instance's pid (the node process itself) as soon as it is spawned. */
  readonly onSpawn?: (pid: number) => void;
}

export interface Instance {
  readonly name: string;
  readonly pid: number;
  sample(): ProcSample | undefined;
  /** Stops it; resolves with the last /proc sample (peak RSS, CPU) taken before it exited. */
  stop(): Promise<ProcSample | undefined>;
  /** Lines it printed (last 200). */
  output(): readonly string[];
  /** Its JSON log lines counted by level and message. */
  logCounts(): ReadonlyMap<string, number>;
  /** Its Prometheus metrics text, when it serves them. */
  metrics(): Promise<string | undefined>;
  /** Base URL of its ops server (taps), when it has one. */
  readonly opsUrl?: string;
}

export interface SystemUnderTest {
  readonly name: 'baseline' | 'opstream';
  /** Whether several instances share the work (the baseline has no sharding). */
  readonly scalesOut: boolean;
  start(target: Target, options: InstanceOptions): Promise<Instance>;
  /** Resolves once the instances started on `target` are all working (leases balanced…). */
  settled(instances: readonly Instance[], timeoutMs: number): Promise<void>;
}

function commonEnv(target: Target, instanceName: string): Record<string, string> {
  return {
    ...settingsEnv(instanceSettings(target)),
    OPSTREAM_CHANGEFEED_INSTANCE_NAME: instanceName,
    OPSTREAM_LOG_LEVEL: 'warn',
    OPSTREAM_LOG_FORMAT: 'json',
  };
}

function asInstance(name: string, child: Child, metricsUrl?: string, opsUrl?: string): Instance {
  return {
    name,
    ...(opsUrl ? { opsUrl } : {}),
    pid: child.pid,
    sample: () => child.sample(),
    stop: () => child.stop(),
    output: () => child.output(),
    logCounts: () => child.logCounts,
    metrics: async () =>
      metricsUrl
        ? fetch(metricsUrl)
            .then((r) => (r.ok ? r.text() : undefined))
            .catch(() => undefined)
        : undefined,
  };
}

function profileArgs(options: InstanceOptions): string[] {
  return options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [];
}

export function baselineSystem(intervals: { scanIntervalMs: number; passIntervalMs: number }): SystemUnderTest {
  return {
    name: 'baseline',
    scalesOut: false,
    async start(target, options) {
      const child = await Child.start({
        label: `baseline ${options.instanceName}`,
        nodeArgs: profileArgs(options),
        args: [join(__dirname, '../baseline/main.js')],
        env: {
          ...commonEnv(target, options.instanceName),
          BASELINE_SCAN_INTERVAL_MS: String(intervals.scanIntervalMs),
          BASELINE_PASS_INTERVAL_MS: String(intervals.passIntervalMs),
        },
        ready: /baseline ready/,
        onSpawn: options.onSpawn,
      });
      return asInstance(options.instanceName, child);
    },
    // The baseline scans at start: nothing to wait for.
    settled: async () => undefined,
  };
}

/** `opstream run` settings the harness passes (OPSTREAM_CHANGEFEED_* / OPSTREAM_PIPELINE_*); defaults otherwise. */
export type OpstreamSettings = Readonly<Record<string, string>>;

interface ReadyReport {
  ready: boolean;
  checks?: Record<string, { ok: boolean; detail?: string }>;
}

export function opstreamSystem(settings: OpstreamSettings = {}): SystemUnderTest {
  const opsUrls = new Map<number, string>();
  return {
    name: 'opstream',
    scalesOut: true,
    async start(target, options) {
      const child = await Child.start({
        label: `opstream ${options.instanceName}`,
        nodeArgs: profileArgs(options),
        args: [CLI, 'run'],
        env: { ...commonEnv(target, options.instanceName), OPSTREAM_OPS_ADDR: '127.0.0.1:0', ...settings },
        ready: /running/,
        onSpawn: options.onSpawn,
      });
      const line = child.output().find((l) => /ops server http:\/\//.test(l));
      const url = line ? /ops server (http:\/\/[^\s;]+)/.exec(line)?.[1] : undefined;
      const base = url?.replace(/\/$/, '');
      if (base) opsUrls.set(child.pid, base);
      return asInstance(options.instanceName, child, base ? `${base}/metrics` : undefined, base);
    },
    /** Every instance ready, and the leases spread: each holds one at least (up to the lease count). */
    async settled(instances, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const held: number[] = [];
        let total = 0;
        let ready = true;
        for (const i of instances) {
          const url = opsUrls.get(i.pid);
          if (!url) return;
          const report = (await fetch(`${url}/readyz`)
            .then((r) => r.json())
            .catch(() => ({ ready: false }))) as ReadyReport;
          const detail = report.checks?.changefeed?.detail ?? '';
          const m = /(\d+) of (\d+) lease/.exec(detail);
          held.push(m ? Number(m[1]) : 0);
          total = Math.max(total, m ? Number(m[2]) : 0);
          ready &&= report.ready;
        }
        const sum = held.reduce((a, b) => a + b, 0);
        const spread = held.every((h) => h >= 1 || instances.length > total);
        if (ready && total > 0 && sum === total && spread) return;
        if (Date.now() > deadline)
          throw new Error(`opstream instances not settled within ${timeoutMs} ms (leases held: ${held.join(', ')} of ${total})`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
}

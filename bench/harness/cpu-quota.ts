/**
 * A CPU quota for child processes (a Linux cgroup of their own): the scale-out phase caps each
 * instance at a fraction of a core so that adding instances is bounded by the instances, not by the
 * machine's cores. cgroup v1 (cpu controller: cpu.cfs_period_us / cpu.cfs_quota_us) or v2 (cpu.max);
 * needs root. Every group made here is removed by dispose() or, at the latest, when this process exits.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type CpuQuotaMechanism = 'cgroup v1' | 'cgroup v2';

/** Counters from the group's cpu.stat (cumulative since it was made). */
export interface ThrottleStats {
  readonly periods: number;
  /** Periods in which the group used up its quota and was stopped until the next one. */
  readonly throttledPeriods: number;
  readonly throttledMs: number;
}

export interface CpuQuota {
  readonly name: string;
  readonly cores: number;
  readonly mechanism: CpuQuotaMechanism;
  readonly dir: string;
  /** Moves the process, all its threads, into the group; threads and children it starts later stay in it. */
  addPid(pid: number): void;
  stats(): ThrottleStats | undefined;
  /** Moves whatever still runs in the group back to the parent and removes the group. Idempotent. */
  dispose(): void;
}

const PERIOD_US = 100_000;
/** The kernel refuses quotas under 1 ms per period. */
const MIN_QUOTA_US = 1_000;
const PREFIX = 'opstream-bench-';

interface Hierarchy {
  readonly mechanism: CpuQuotaMechanism;
  readonly root: string;
  setQuota(dir: string, quotaUs: number): void;
  throttledMs(stat: Map<string, number>): number;
}

const V1: Hierarchy = {
  mechanism: 'cgroup v1',
  root: '/sys/fs/cgroup/cpu',
  setQuota(dir, quotaUs) {
    writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quotaUs));
  },
  throttledMs: (stat) => (stat.get('throttled_time') ?? 0) / 1e6,
};

const V2: Hierarchy = {
  mechanism: 'cgroup v2',
  root: '/sys/fs/cgroup',
  setQuota(dir, quotaUs) {
    writeFileSync(join(dir, 'cpu.max'), `${quotaUs} ${PERIOD_US}`);
  },
  throttledMs: (stat) => (stat.get('throttled_usec') ?? 0) / 1e3,
};

/** The hierarchy to use, or why there is none. */
function hierarchy(): Hierarchy | string {
  const controllers = join(V2.root, 'cgroup.controllers');
  if (existsSync(controllers)) {
    if (!readFileSync(controllers, 'utf8').split(/\s+/).includes('cpu')) return 'cgroup v2 without the cpu controller';
    // Children of the root get cpu.max only once the root hands the controller down.
    const subtree = join(V2.root, 'cgroup.subtree_control');
    if (!readFileSync(subtree, 'utf8').split(/\s+/).includes('cpu')) writeFileSync(subtree, '+cpu');
    return V2;
  }
  if (existsSync(join(V1.root, 'cpu.cfs_quota_us'))) return V1;
  return 'no cgroup cpu controller under /sys/fs/cgroup';
}

const live = new Set<CpuQuota>();
let exitHookInstalled = false;

/** Creates the group `opstream-bench-<name>` capped at `cores` (0.25 = a quarter of one core). Throws when it cannot. */
export function createCpuQuota(name: string, cores: number): CpuQuota {
  const h = hierarchy();
  if (typeof h === 'string') throw new Error(`CPU quota unavailable: ${h}`);
  const dir = join(h.root, `${PREFIX}${name.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
  mkdirSync(dir);
  let disposed = false;
  const quota: CpuQuota = {
    name,
    cores,
    mechanism: h.mechanism,
    dir,
    addPid(pid) {
      // cgroup.procs (not `tasks`) moves every thread of the process, V8's and libuv's included.
      writeFileSync(join(dir, 'cgroup.procs'), String(pid));
    },
    stats() {
      try {
        const stat = new Map(
          readFileSync(join(dir, 'cpu.stat'), 'utf8')
            .split('\n')
            .map((l) => l.split(' '))
            .filter((kv) => kv.length === 2)
            .map(([k, v]): [string, number] => [k, Number(v)]),
        );
        return { periods: stat.get('nr_periods') ?? 0, throttledPeriods: stat.get('nr_throttled') ?? 0, throttledMs: h.throttledMs(stat) };
      } catch {
        return undefined;
      }
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      live.delete(quota);
      try {
        // A group still holding a process cannot be removed (EBUSY): hand them back to the parent first.
        for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
          try {
            writeFileSync(join(dirname(dir), 'cgroup.procs'), pid);
          } catch {
            // exited meanwhile
          }
        }
        rmdirSync(dir);
      } catch (err) {
        process.stderr.write(`cpu-quota: could not remove ${dir}: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    },
  };
  live.add(quota);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Synchronous, so it also runs on process.exit() after a failure or a signal.
    process.once('exit', disposeAllCpuQuotas);
  }
  try {
    h.setQuota(dir, Math.max(MIN_QUOTA_US, Math.round(cores * PERIOD_US)));
  } catch (err) {
    quota.dispose();
    throw err;
  }
  return quota;
}

function disposeAllCpuQuotas(): void {
  for (const q of [...live]) q.dispose();
}

/** Whether quotas work here: makes one group, sets a quota on it and removes it. */
export function probeCpuQuota(): { mechanism: CpuQuotaMechanism } | { unavailable: string } {
  try {
    const q = createCpuQuota(`probe-${process.pid}`, 0.5);
    q.dispose();
    return existsSync(q.dir) ? { unavailable: `could not remove ${q.dir}` } : { mechanism: q.mechanism };
  } catch (err) {
    return { unavailable: err instanceof Error ? err.message : String(err) };
  }
}

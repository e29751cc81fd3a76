/** Memory and CPU of a child process from /proc (Linux). */
import { readFileSync } from 'node:fs';

export interface ProcSample {
  /** Resident set size now, bytes. */
  readonly rssBytes: number;
  /** Peak resident set size since start (VmHWM), bytes. */
  readonly peakRssBytes: number;
  /** User + system CPU time since start, milliseconds. */
  readonly cpuMs: number;
}

const TICKS_PER_SECOND = 100;

export function sampleProcess(pid: number): ProcSample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    // Fields after the command name (which may hold spaces) start at index 2 of the split: utime is field 14.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    return { rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM'), cpuMs: ((utime + stime) * 1000) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

/** Busy and total CPU time of the whole machine so far (/proc/stat), milliseconds. */
export function machineCpu(): { busyMs: number; totalMs: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    const total = f.slice(0, 8).reduce((s, v) => s + v, 0);
    return { busyMs: ((total - idle) * 1000) / TICKS_PER_SECOND, totalMs: (total * 1000) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

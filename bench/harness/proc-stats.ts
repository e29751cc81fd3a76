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

/**
 * Summary of a V8 CPU profile (node --cpu-prof): self time by function and by area (V8/GC, Node
 * internals, each npm package, each opstream folder), so the report can say where the time goes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LevelResult } from './throughput-phase';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export interface ProfileShare {
  readonly name: string;
  /** Share of the busy (non-idle) samples, 0..1. */
  readonly share: number;
}

export interface ProfileSummary {
  readonly file: string;
  readonly durationSeconds: number;
  /** Busy share of the profiled wall time (1 = one core all the time). */
  readonly busyShare: number;
  readonly topFunctions: ProfileShare[];
  readonly areas: ProfileShare[];
  /** The load it was taken under. */
  readonly level: Pick<LevelResult, 'rate' | 'completedPerSecond' | 'cpuCores'>;
}

/** Area of a frame: a package under node_modules, an opstream folder, node internals, or V8. */
function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? `V8 ${functionName}` : 'V8 / native';
  if (url.startsWith('node:')) return 'Node internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm ${pkg[1]}`;
  const own = /dist\/((?:src\/[^/]+)|processors|infra\/[^/]+|bench)/.exec(url);
  if (own) return `opstream ${own[1]}`;
  return 'other';
}

function shortUrl(url: string): string {
  const i = url.lastIndexOf('node_modules/');
  if (i >= 0) return url.slice(i + 'node_modules/'.length);
  const d = url.indexOf('/dist/');
  return d >= 0 ? url.slice(d + 6) : url.replace(/^file:\/\//, '');
}

export function summarizeProfile(dir: string, level: LevelResult): ProfileSummary | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) return undefined;
  const file = join(dir, files[0]);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const hits = new Map<number, number>();
  if (profile.samples) for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  else for (const n of profile.nodes) hits.set(n.id, n.hitCount ?? 0);
  let total = 0;
  let idle = 0;
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    if (count === 0) continue;
    total += count;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += count;
      continue;
    }
    const fn = `${functionName || '(anonymous)'}${url ? ` ${shortUrl(url)}:${lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + count);
    const area = areaOf(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + count);
  }
  const busy = total - idle;
  const top = (m: Map<string, number>, n: number): ProfileShare[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, count]) => ({ name, share: busy ? count / busy : 0 }));
  return {
    file,
    durationSeconds: (profile.endTime - profile.startTime) / 1e6,
    busyShare: total ? busy / total : 0,
    topFunctions: top(byFunction, 15),
    areas: top(byArea, 12),
    level: { rate: level.rate, completedPerSecond: level.completedPerSecond, cpuCores: level.cpuCores },
  };
}

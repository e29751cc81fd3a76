/**
 * Clusters Service phase durations drawn from a fixed seeded distribution, keyed by the object's
 * name and the action: the same cluster gets the same durations in every system and every run,
 * whatever order the systems create things in. Log-normal around a median, clipped, then scaled.
 */
import type { DurationTarget, Durations, DurationsFor } from '@opstream/clusters-service-simulator';
import { seededRandom } from '@opstream/frontend-simulator';

export interface DurationProfile {
  readonly name: string;
  /** Median and clip range of each phase, milliseconds (before `scale`). */
  readonly phases: Readonly<Record<keyof Durations, { median: number; min: number; max: number }>>;
  /** Node pools install and update this much faster than clusters. */
  readonly nodePoolFactor: number;
}

/** Minutes-long in production; compressed to seconds here so a run ends. */
export const SCRIPTED_PROFILE: DurationProfile = {
  name: 'scripted',
  phases: {
    pendingMs: { median: 500, min: 100, max: 2_000 },
    validatingMs: { median: 500, min: 100, max: 2_000 },
    installingMs: { median: 8_000, min: 3_000, max: 30_000 },
    updatingMs: { median: 5_000, min: 2_000, max: 15_000 },
    deleteStartMs: { median: 500, min: 200, max: 1_500 },
    uninstallingMs: { median: 5_000, min: 2_000, max: 15_000 },
  },
  nodePoolFactor: 0.5,
};

/** Short lifecycles: what is measured is the backend's processing capacity, not CS. */
export const THROUGHPUT_PROFILE: DurationProfile = {
  name: 'throughput',
  phases: {
    pendingMs: { median: 100, min: 30, max: 300 },
    validatingMs: { median: 100, min: 30, max: 300 },
    installingMs: { median: 600, min: 200, max: 2_000 },
    updatingMs: { median: 400, min: 150, max: 1_500 },
    deleteStartMs: { median: 100, min: 30, max: 300 },
    uninstallingMs: { median: 400, min: 150, max: 1_500 },
  },
  nodePoolFactor: 0.5,
};

/** FNV-1a of a string: the seed of one object's draws. */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Standard normal from two uniforms (Box–Muller). */
function normal(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const PHASES: ReadonlyArray<keyof Durations> = [
  'pendingMs',
  'validatingMs',
  'installingMs',
  'updatingMs',
  'deleteStartMs',
  'uninstallingMs',
];

/** The durations of one object and action: pure, so the harness can recompute them. */
export function drawDurations(
  profile: DurationProfile,
  target: Pick<DurationTarget, 'kind' | 'action' | 'clusterName' | 'nodePoolId'>,
  seed: number,
  scale = 1,
): Durations {
  const random = seededRandom(
    hashSeed(`${seed}|${profile.name}|${target.kind}|${target.action}|${target.clusterName}|${target.nodePoolId ?? ''}`),
  );
  const out = {} as Durations;
  for (const phase of PHASES) {
    const { median, min, max } = profile.phases[phase];
    const factor = target.kind === 'nodePool' && (phase === 'installingMs' || phase === 'updatingMs') ? profile.nodePoolFactor : 1;
    const value = Math.min(max, Math.max(min, median * Math.exp(0.45 * normal(random))));
    out[phase] = Math.round(value * factor * scale);
  }
  return out;
}

export function seededDurationsFor(profile: DurationProfile, seed: number, scale = 1): DurationsFor {
  return (target) => drawDurations(profile, target, seed, scale);
}

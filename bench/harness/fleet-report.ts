/**
 * The fleet benchmark's figures and how they are written: its page bench/results/fleet.md and the
 * projection block of docs/cost.md, both rendered from one run (bench/results/fleet/run.json).
 */
import { DEFAULTS } from '@opstream/changefeed';

export interface TakeoverResult {
  instances: number;
  leasesOfKilled: number;
  /** From the SIGKILL to the first and the last of its leases acquired by a survivor. */
  firstTakenMs: number;
  allTakenMs: number;
  written: number;
  lost: number;
  /** Documents delivered more than once (at least once: the killed instance's unsaved progress). */
  duplicated: number;
  balancedAfter: boolean;
}

export interface FleetConfigResult {
  ranges: number;
  instances: number;
  /** From the start of the instances to every range owned (absent from runs before it was measured). */
  allOwnedMs?: number;
  balancedMs: number;
  steadyS: number;
  movesPerMinute: number;
  leaseRequestsPerSecondPerInstance: number;
  leaseRequestsPerSecondPerRange: number;
  /** Lease listings (queries and their plans), the whole fleet. */
  listingRequestsPerSecond: number;
  /** Request units of the lease container a second, the whole fleet; of which listings. */
  leaseRuPerSecond: number;
  listingRuPerSecond: number;
  leaseWritesPerSecondPerRange: number;
  changeFeedRequestsPerSecondPerRange: number;
  rssMiBPerInstance: number;
  leasesPerInstance: number;
  takeover?: TakeoverResult;
}

export interface FleetRun {
  at: string;
  /** The commit measured, when known. */
  commit?: string;
  cores: number;
  cpuPerInstance: number | undefined;
  steadyS: number;
  options: Record<string, number>;
  configs: FleetConfigResult[];
}

const PROJECTION = { ranges: 1_000, instances: 50 } as const;

const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '—');
const f2 = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '—');
const s1 = (ms: number): string => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : '—');

/** Least-squares line through points; one point gives a line through the origin. */
function fit(points: ReadonlyArray<[number, number]>): { slope: number; intercept: number } {
  if (points.length === 1) return { slope: points[0][1] / points[0][0], intercept: 0 };
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/** Least squares of z = a·x + b·y (no intercept): the fleet's listing RU against ranges and instances. */
function fitTwo(points: ReadonlyArray<[number, number, number]>): { a: number; b: number } {
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  let sxz = 0;
  let syz = 0;
  for (const [x, y, z] of points) {
    sxx += x * x;
    sxy += x * y;
    syy += y * y;
    sxz += x * z;
    syz += y * z;
  }
  const det = sxx * syy - sxy * sxy;
  if (det === 0) return { a: sxz / sxx, b: 0 };
  return { a: (sxz * syy - syz * sxy) / det, b: (syz * sxx - sxz * sxy) / det };
}

export interface Projection {
  ranges: number;
  instances: number;
  /** Lease writes (renewals, checkpoints): per range, measured, times the ranges. */
  leaseWritesPerSecond: number;
  /** Listings: requests per instance fitted against the ranges, times the instances; RU as α·ranges + β·instances. */
  listingRequestsPerSecond: number;
  listingRuPerSecond: number;
  leaseRequestsPerSecond: number;
  changeFeedRequestsPerSecond: number;
  memoryMiBPerInstance: number;
}

/**
 * Lease-container cost at `PROJECTION`'s size, from per-unit figures of the run: writes per range
 * (mean over configurations), listing requests and RU per instance as a line in the ranges, memory
 * per instance as a line in the leases it holds.
 */
export function project(run: FleetRun, size: { ranges: number; instances: number } = PROJECTION): Projection {
  const c = run.configs;
  const mean = (xs: number[]): number => xs.reduce((s, v) => s + v, 0) / xs.length;
  const writesPerRange = mean(c.map((r) => r.leaseWritesPerSecondPerRange));
  // Listings: per instance a constant rate of queries; their RU for the fleet as α·ranges + β·instances.
  const listing = fit(c.map((r) => [r.ranges, r.listingRequestsPerSecond / r.instances]));
  const listingRu = fitTwo(c.map((r) => [r.ranges, r.instances, r.listingRuPerSecond]));
  const memory = fit(c.map((r) => [r.leasesPerInstance, r.rssMiBPerInstance]));
  const listingRequestsPerSecond = (listing.slope * size.ranges + listing.intercept) * size.instances;
  const leaseWritesPerSecond = writesPerRange * size.ranges;
  return {
    ...size,
    leaseWritesPerSecond,
    listingRequestsPerSecond,
    listingRuPerSecond: listingRu.a * size.ranges + listingRu.b * size.instances,
    leaseRequestsPerSecond: leaseWritesPerSecond + listingRequestsPerSecond,
    changeFeedRequestsPerSecond: mean(c.map((r) => r.changeFeedRequestsPerSecondPerRange)) * size.ranges,
    memoryMiBPerInstance: memory.slope * (size.ranges / size.instances) + memory.intercept,
  };
}

const COST_BEGIN = '<!-- fleet-projection:begin (written by `node dist/bench/fleet.js --record`; do not edit by hand) -->';
const COST_END = '<!-- fleet-projection:end -->';

/**
 * The projection block of docs/cost.md. When the run renewed leases at another interval than
 * `renewIntervalMs` (today's default), it also says what the idle ranges' lease writes come to at
 * today's: one write per lease per renewal, so the measured rate scaled by the ratio of intervals.
 */
export function renderProjection(run: FleetRun, renewIntervalMs: number = DEFAULTS.leaseRenewIntervalMs): string {
  const p = project(run);
  const runRenewMs = run.options.leaseRenewIntervalMs;
  const o = run.options;
  const timing = `renewal every ${runRenewMs / 1000} s, expiry ${o.leaseExpirationMs / 1000} s`;
  const today =
    runRenewMs !== undefined && runRenewMs !== renewIntervalMs
      ? [
          '',
          `The run renewed leases every ${runRenewMs / 1000} s; the default is now ${renewIntervalMs / 1000} s, at which an idle lease is written ${runRenewMs / renewIntervalMs < 1 ? 'less' : 'more'} often: about ${f1((p.leaseWritesPerSecond * runRenewMs) / renewIntervalMs)} lease writes a second at this size (the measured rate × ${runRenewMs / 1000}/${renewIntervalMs / 1000}, not measured at fleet scale).`,
        ]
      : [];
  return [
    COST_BEGIN,
    `Projected from the fleet benchmark's per-unit figures (${run.at.slice(0, 10)}, bench/results/fleet.md), for ${p.ranges.toLocaleString('en-US')} feed ranges shared by ${p.instances} instances with the run's settings (${timing}):`,
    '',
    '| | per second |',
    '|---|---|',
    `| lease writes (renewals and checkpoints, idle ranges) | ${f1(p.leaseWritesPerSecond)} requests |`,
    `| lease listings (full listings, once an interval between the settled instances, and each instance's watch reads) | ${f1(p.listingRequestsPerSecond)} requests, ${f1(p.listingRuPerSecond)} RU |`,
    `| change-feed polls of idle ranges | ${f1(p.changeFeedRequestsPerSecond)} requests |`,
    `| memory per instance (${Math.round(p.ranges / p.instances)} leases each) | ${f1(p.memoryMiBPerInstance)} MiB |`,
    ...today,
    COST_END,
  ].join('\n');
}

/** docs/cost.md with its projection block replaced (the markers must be there: the page says where the block goes). */
export function withProjection(doc: string, block: string): string {
  const begin = doc.indexOf(COST_BEGIN);
  const end = doc.indexOf(COST_END);
  if (begin < 0 || end < begin) throw new Error(`docs/cost.md has no ${COST_BEGIN} … ${COST_END} block`);
  return `${doc.slice(0, begin)}${block}${doc.slice(end + COST_END.length)}`;
}

function configTable(run: FleetRun): string[] {
  return [
    '| ranges | instances | every range owned after | balanced (±1) after | lease moves a minute (steady) | lease requests/s per instance | lease requests/s per range | listing requests/s (fleet) | listing RU/s (fleet) | lease writes/s per range | change-feed requests/s per range | RSS per instance (MiB) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...run.configs.map(
      (c) =>
        `| ${c.ranges} | ${c.instances} | ${c.allOwnedMs === undefined ? '—' : `${s1(c.allOwnedMs)} s`} | ${s1(c.balancedMs)} s | ${f1(c.movesPerMinute)} | ${f2(c.leaseRequestsPerSecondPerInstance)} | ${f2(c.leaseRequestsPerSecondPerRange)} | ${f2(c.listingRequestsPerSecond)} | ${f1(c.listingRuPerSecond)} | ${f2(c.leaseWritesPerSecondPerRange)} | ${f2(c.changeFeedRequestsPerSecondPerRange)} | ${f1(c.rssMiBPerInstance)} |`,
    ),
  ];
}

/** The run's checkpoint pacing, when it recorded it (runs before 2026-12-06 did not). */
function checkpointNote(run: FleetRun): string {
  const ms = run.options.checkpointIntervalMs;
  return ms === undefined ? '' : ` (held back at most ${ms / 1000} s: \`checkpointIntervalMs\`)`;
}

function takeoverTable(run: FleetRun): string[] {
  const takeovers = run.configs.filter((c) => c.takeover);
  if (takeovers.length === 0) return [];
  return [
    `Takeover: one instance of ${takeovers[0].takeover!.instances} killed (SIGKILL) while 20 documents a second were written. Delivery is at least once: what the killed instance handled after its last checkpoint${checkpointNote(run)} is delivered again by the new owner, and counted as delivered twice:`,
    '',
    '| ranges | leases of the killed instance | first taken over after | all taken over after | documents written | lost | delivered twice | balanced again |',
    '|---|---|---|---|---|---|---|---|',
    ...takeovers.map((c) => {
      const t = c.takeover!;
      return `| ${c.ranges} | ${t.leasesOfKilled} | ${s1(t.firstTakenMs)} s | ${s1(t.allTakenMs)} s | ${t.written} | ${t.lost} | ${t.duplicated} | ${t.balancedAfter ? 'yes' : 'no'} |`;
    }),
    '',
  ];
}

/** The listing RU of the same configuration in both runs, as "before → after (×ratio)". */
function listingChange(before: FleetRun, after: FleetRun): string[] {
  return after.configs.flatMap((a) => {
    const b = before.configs.find((c) => c.ranges === a.ranges && c.instances === a.instances);
    if (!b || b.listingRuPerSecond === 0) return [];
    return [
      `${a.ranges} × ${a.instances}: ${f1(b.listingRuPerSecond)} → ${f1(a.listingRuPerSecond)} (${f2(a.listingRuPerSecond / b.listingRuPerSecond)}×)`,
    ];
  });
}

export function renderFleet(run: FleetRun, before?: FleetRun): string {
  const o = run.options;
  const p = project(run);
  return [
    '## Fleet (issue 40)',
    '',
    `${run.at.slice(0, 10)}${run.commit ? `, commit ${run.commit}` : ''}, ${run.cores} cores; \`node dist/bench/fleet.js --steady-s ${run.steadyS}\`. Each instance is a change feed processor in a process of its own${run.cpuPerInstance ? `, capped at ${run.cpuPerInstance} core` : ' (not capped: no cgroup CPU controller)'}, with the defaults (acquire every ${o.leaseAcquireIntervalMs / 1000} s, renew every ${o.leaseRenewIntervalMs / 1000} s, expiry ${o.leaseExpirationMs / 1000} s, up to ${o.leasesAcquiredPerCycle} leases a cycle, idle poll ceiling ${o.maxPollDelayMs / 1000} s), all started at once on a new lease container; the ranges are the emulator's partitions. Ownership comes from the instances' events; requests from the emulator's counters over the steady state (${run.steadyS} s after the fleet balanced, nothing written).`,
    '',
    ...configTable(run),
    '',
    ...takeoverTable(run),
    `Projection to ${p.ranges.toLocaleString('en-US')} ranges and ${p.instances} instances (per-unit figures above; docs/cost.md): lease writes ${f1(p.leaseWritesPerSecond)} requests/s, listings ${f1(p.listingRequestsPerSecond)} requests/s and ${f1(p.listingRuPerSecond)} RU/s, idle change-feed polls ${f1(p.changeFeedRequestsPerSecond)} requests/s, ${f1(p.memoryMiBPerInstance)} MiB per instance.`,
    ...(before
      ? [
          '',
          `### Before the balancer paced its listings (${before.at.slice(0, 10)}${before.commit ? `, commit ${before.commit}` : ''}, bench/results/fleet/before-run.json)`,
          '',
          'Every instance listed every lease every interval, and a lone instance took 8 leases an interval. Same program and settings; the run stopped at 256 ranges, which the emulator then refused (64 at most).',
          '',
          ...configTable(before),
          '',
          ...takeoverTable(before),
          `Listing RU a second, before → after: ${listingChange(before, run).join('; ')}.`,
        ]
      : []),
  ].join('\n');
}

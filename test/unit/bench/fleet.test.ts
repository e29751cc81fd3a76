import { FleetOwnership } from '../../../bench/harness/fleet-ownership';
import { project, renderFleet, renderProjection, type FleetConfigResult, type FleetRun } from '../../../bench/harness/fleet-report';

describe('fleet ownership from the instances’ events', () => {
  it('follows acquisitions, and a late "lost" of the old owner does not erase the new one', () => {
    const o = new FleetOwnership();
    o.observe({ worker: 0, type: 'changefeed.lease.acquired', lease: 'a', at: 1 });
    o.observe({ worker: 0, type: 'changefeed.lease.acquired', lease: 'b', at: 1 });
    o.observe({ worker: 1, type: 'changefeed.lease.acquired', lease: 'b', at: 5 });
    o.observe({ worker: 0, type: 'changefeed.lease.lost', lease: 'b', at: 6 });
    expect(o.ownerOf('b')).toBe(1);
    expect(o.counts([0, 1])).toEqual([1, 1]);
    expect(o.balanced(2, [0, 1])).toBe(true);
    expect(o.acquisitionsSince(5)).toBe(1);
  });

  it('is not balanced while a lease is unowned or two instances differ by more than one', () => {
    const o = new FleetOwnership();
    for (const lease of ['a', 'b', 'c']) o.observe({ worker: 0, type: 'changefeed.lease.acquired', lease, at: 1 });
    expect(o.balanced(3, [0, 1])).toBe(false);
    o.observe({ worker: 1, type: 'changefeed.lease.acquired', lease: 'c', at: 2 });
    expect(o.balanced(3, [0, 1])).toBe(true);
    o.observe({ worker: 1, type: 'changefeed.lease.released', lease: 'c', at: 3 });
    expect(o.balanced(3, [0, 1])).toBe(false);
  });

  it('forgets a killed instance’s leases until someone acquires them', () => {
    const o = new FleetOwnership();
    o.observe({ worker: 2, type: 'changefeed.lease.acquired', lease: 'x', at: 1 });
    expect(o.forget(2)).toEqual(['x']);
    expect(o.ownerOf('x')).toBeUndefined();
  });
});

function config(ranges: number, instances: number, listingPerInstance: number, rss: number): FleetConfigResult {
  return {
    ranges,
    instances,
    balancedMs: 1000,
    steadyS: 60,
    movesPerMinute: 0,
    leaseRequestsPerSecondPerInstance: 0,
    leaseRequestsPerSecondPerRange: 0,
    listingRequestsPerSecond: listingPerInstance * instances,
    leaseRuPerSecond: 0,
    // The fleet's listing RU: 0.5 a range and 2 an instance.
    listingRuPerSecond: 0.5 * ranges + 2 * instances,
    leaseWritesPerSecondPerRange: 0.1,
    changeFeedRequestsPerSecondPerRange: 1,
    rssMiBPerInstance: rss,
    leasesPerInstance: ranges / instances,
  };
}

/** A run's settings, the defaults of the time; each test adds its configurations. */
const RUN: Omit<FleetRun, 'configs'> = {
  at: '2026-12-05T00:00:00Z',
  cores: 2,
  cpuPerInstance: 0.25,
  steadyS: 60,
  options: {
    leaseAcquireIntervalMs: 5000,
    leaseRenewIntervalMs: 10000,
    leaseExpirationMs: 30000,
    leasesAcquiredPerCycle: 8,
    maxPollDelayMs: 1000,
  },
};

describe('the fleet projection', () => {
  const run: FleetRun = {
    ...RUN,
    // Listing per instance: 0.4 + ranges/400 requests a second; memory: 80 MiB + 0.1 MiB a lease.
    configs: [config(64, 1, 0.56, 86.4), config(64, 4, 0.56, 81.6), config(256, 1, 1.04, 105.6), config(256, 16, 1.04, 81.6)],
  };

  it('extends the per-unit lines measured to 1,000 ranges and 50 instances', () => {
    const p = project(run);
    expect(p.leaseWritesPerSecond).toBeCloseTo(100);
    expect(p.listingRequestsPerSecond).toBeCloseTo((0.4 + 1000 / 400) * 50);
    expect(p.listingRuPerSecond).toBeCloseTo(0.5 * 1000 + 2 * 50);
    expect(p.changeFeedRequestsPerSecond).toBeCloseTo(1000);
    expect(p.memoryMiBPerInstance).toBeCloseTo(80 + 0.1 * 20);
  });

  it('renders the table, the takeover and the projection from the run', () => {
    const withTakeover: FleetRun = {
      ...run,
      configs: [
        ...run.configs,
        {
          ...config(256, 16, 1.04, 81.6),
          takeover: {
            instances: 16,
            leasesOfKilled: 16,
            firstTakenMs: 30_500,
            allTakenMs: 31_200,
            written: 900,
            lost: 0,
            duplicated: 3,
            balancedAfter: true,
          },
        },
      ],
    };
    const section = renderFleet(withTakeover);
    expect(section).toContain('| 256 | 16 | 30.5 s | 31.2 s | 900 | 0 | 3 | yes |');
    expect(section).toContain('| 64 | 4 | — | 1.0 s | 0.0 |');
    expect(section).not.toContain('held back at most');
    const withCheckpoint = { ...withTakeover, options: { ...withTakeover.options, checkpointIntervalMs: 1000 } };
    expect(renderFleet(withCheckpoint)).toContain(
      'after its last checkpoint (held back at most 1 s: `checkpointIntervalMs`) is delivered again',
    );
    expect(renderProjection(run)).toMatch(/1,000 feed ranges shared by 50 instances/);
    const writes = project(run).leaseWritesPerSecond;
    const renewedEvery10s = { ...run, options: { ...run.options, leaseRenewIntervalMs: 10_000, leaseExpirationMs: 30_000 } };
    expect(renderProjection(renewedEvery10s, 10_000)).not.toContain('the default is now');
    expect(renderProjection(renewedEvery10s, 15_000)).toContain(
      `the default is now 15 s, at which an idle lease is written less often: about ${((writes * 10) / 15).toFixed(1)} lease writes a second`,
    );
  });
});

describe('the fleet section beside the run before the change', () => {
  it('renders the earlier run and the listing RU of each configuration both measured', () => {
    const at = (listingRu: number): FleetConfigResult => ({ ...config(64, 4, 0.5, 80), listingRuPerSecond: listingRu });
    const section = renderFleet({ ...RUN, commit: 'after', configs: [at(20)] }, { ...RUN, commit: 'before', configs: [at(80)] });
    expect(section).toContain('### Before the balancer paced its listings (2026-12-05, commit before');
    expect(section).toContain('64 × 4: 80.0 → 20.0 (0.25×)');
  });
});

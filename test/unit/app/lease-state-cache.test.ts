import type { ChangeFeedProcessor, ProcessorState } from '@opstream/changefeed';
import { leaseStateCache } from '../../../src/app/lease-state-cache';
import { createMetrics } from '../../../src/ops/metrics';

function fakeProcessor(reads: Array<() => Promise<ProcessorState>>): { processor: ChangeFeedProcessor; calls: () => number } {
  let calls = 0;
  const processor = { getCurrentState: () => reads[Math.min(calls++, reads.length - 1)]() } as unknown as ChangeFeedProcessor;
  return { processor, calls: () => calls };
}

const state = (lag: number): ProcessorState => ({
  processorName: 'p',
  instanceName: 'me',
  running: true,
  leases: [
    {
      leaseToken: '-10',
      feedRange: { min: '', max: '10' },
      owner: 'me',
      continuation: '"3"',
      timestampMs: 0,
      expired: false,
      ownedByThisInstance: true,
      lag,
    },
    {
      leaseToken: '10-FF',
      feedRange: { min: '10', max: 'FF' },
      owner: 'other',
      continuation: null,
      timestampMs: 0,
      expired: false,
      ownedByThisInstance: false,
      lag: 7,
    },
  ],
});

describe('leaseStateCache', () => {
  it('reads once per maxAge, shares a read in flight, and sets the lag gauge of owned leases only', async () => {
    let t = 0;
    const metrics = createMetrics({ defaultMetrics: false });
    const { processor, calls } = fakeProcessor([async () => state(5), async () => state(9)]);
    const get = leaseStateCache(processor, metrics, 1000, () => t);
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(calls()).toBe(1);
    t = 999;
    await get();
    expect(calls()).toBe(1);
    t = 1000;
    expect((await get()).leases[0].lag).toBe(9);
    expect(calls()).toBe(2);
    const gauge = await metrics.registry.getSingleMetricAsString('opstream_changefeed_lease_lag_changes');
    expect(gauge).toContain('opstream_changefeed_lease_lag_changes{lease="-10"} 9');
    expect(gauge).not.toContain('lease="10-FF"');
  });

  it('counts the leases no live instance holds: no owner, or an owner whose lease expired', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const base = state(0);
    const leases = [
      ...base.leases,
      { ...base.leases[1], leaseToken: 'FF-A0', owner: null },
      { ...base.leases[1], leaseToken: 'A0-B0', owner: 'gone', expired: true },
    ];
    const { processor } = fakeProcessor([async () => ({ ...base, leases })]);
    await leaseStateCache(processor, metrics, 1000, () => 0)();
    const gauge = await metrics.registry.getSingleMetricAsString('opstream_changefeed_leases_unowned');
    expect(gauge).toContain('opstream_changefeed_leases_unowned 2');
  });

  it('does not keep a failed read', async () => {
    const { processor, calls } = fakeProcessor([() => Promise.reject(new Error('cosmos down')), async () => state(1)]);
    const get = leaseStateCache(processor, createMetrics({ defaultMetrics: false }), 60_000, () => 0);
    await expect(get()).rejects.toThrow('cosmos down');
    expect((await get()).leases[0].lag).toBe(1);
    expect(calls()).toBe(2);
  });
});

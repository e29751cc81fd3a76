import type { ProcessorState } from '@opstream/changefeed';
import { leaseCheck } from '../../../src/app/readiness';

type LeaseState = ProcessorState['leases'][number];

/** `/readyz` never says ready while no lease of the processor is owned by a live instance. */
function lease(token: string, fields: Partial<LeaseState>): LeaseState {
  return {
    leaseToken: token,
    feedRange: { min: '', max: 'FF' },
    owner: null,
    continuation: null,
    timestampMs: 0,
    expired: true,
    ownedByThisInstance: false,
    ...fields,
  };
}

describe('readiness: the leases', () => {
  it('is unready when every lease is released or expired, whatever this instance holds in memory', () => {
    const leases = [
      lease('0', { owner: null, expired: true }),
      lease('1', { owner: 'gone-pod', expired: true }),
      lease('2', { owner: null, expired: false }),
      lease('3', { owner: 'gone-pod', expired: true }),
    ];
    expect(leaseCheck({ running: true, leases })).toEqual({
      ok: false,
      detail: 'no lease is owned by a live instance: all 4 released or expired, so nothing reads the change feed',
    });
  });

  it('is unready with no lease at all, and when the processor does not run', () => {
    expect(leaseCheck({ running: true, leases: [] })).toEqual({
      ok: false,
      detail: 'no lease exists yet: the lease store is not initialised',
    });
    expect(leaseCheck({ running: false, leases: [lease('0', { owner: 'me', expired: false, ownedByThisInstance: true })] })).toEqual({
      ok: false,
      detail: 'processor not running',
    });
  });

  it('is ready holding leases, or holding none while other live instances hold some (counting only those)', () => {
    const mine = [lease('0', { owner: 'me', expired: false, ownedByThisInstance: true }), lease('1', { owner: null })];
    expect(leaseCheck({ running: true, leases: mine })).toEqual({ ok: true, detail: '1 of 2 lease(s) held' });
    const others = [
      lease('0', { owner: 'other', expired: false }),
      lease('1', { owner: 'other', expired: true }),
      lease('2', { owner: null }),
    ];
    expect(leaseCheck({ running: true, leases: others })).toEqual({
      ok: true,
      detail: 'no lease held here (1 of 3 held by other live instances)',
    });
  });
});

import { newLifecycle, phaseAt, startDeletion, startUpdate, type Durations } from '@opstream/clusters-service-simulator/lifecycle';

const D: Durations = { pendingMs: 10, validatingMs: 20, installingMs: 30, updatingMs: 40, deleteStartMs: 5, uninstallingMs: 50 };

describe('simulated lifecycle (derived from timestamps)', () => {
  it.each([
    [0, 'pending'],
    [9, 'pending'],
    [10, 'validating'],
    [29, 'validating'],
    [30, 'installing'],
    [59, 'installing'],
    [60, 'ready'],
    [10_000, 'ready'],
  ] as const)('a cluster created at 0 is %s ms later: %s', (t, phase) => {
    expect(phaseAt(newLifecycle(0, D), t)).toBe(phase);
  });

  it('a planned provision failure shows after installing', () => {
    const l = newLifecycle(0, D, true);
    expect(phaseAt(l, 59)).toBe('installing');
    expect(phaseAt(l, 60)).toBe('error');
  });

  it('update: only when ready, then updating → ready', () => {
    const l = newLifecycle(0, D);
    expect(startUpdate(l, 50, D)).toBe(false);
    expect(startUpdate(l, 100, D)).toBe(true);
    expect(phaseAt(l, 100)).toBe('updating');
    expect(phaseAt(l, 139)).toBe('updating');
    expect(phaseAt(l, 140)).toBe('ready');
  });

  it('delete: the previous state lingers, then uninstalling, then gone; repeating changes nothing', () => {
    const l = newLifecycle(0, D);
    startDeletion(l, 100, D);
    expect(phaseAt(l, 104)).toBe('ready');
    expect(phaseAt(l, 105)).toBe('uninstalling');
    startDeletion(l, 140, D);
    expect(phaseAt(l, 154)).toBe('uninstalling');
    expect(phaseAt(l, 155)).toBe('gone');
  });

  it('a forced error holds until deleted', () => {
    const l = newLifecycle(0, D);
    l.failedAt = 70;
    expect(phaseAt(l, 69)).toBe('ready');
    expect(phaseAt(l, 70)).toBe('error');
    expect(startUpdate(l, 80, D)).toBe(false);
    startDeletion(l, 80, D);
    expect(phaseAt(l, 85)).toBe('uninstalling');
  });

  it('durations are snapshotted: changing them later does not move an existing object', () => {
    const durations = { ...D };
    const l = newLifecycle(0, durations);
    durations.installingMs = 10_000;
    expect(phaseAt(l, 60)).toBe('ready');
  });
});

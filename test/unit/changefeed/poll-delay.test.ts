import { PollDelay, nextPollDelayMs } from '../../../src/changefeed/feed/poll-delay';

describe('adaptive poll delay', () => {
  const opstream = { minPollDelayMs: 0, maxPollDelayMs: 100, pollDelayRampSteps: 4 };
  const dotnet = { minPollDelayMs: 0, maxPollDelayMs: 5000, pollDelayRampSteps: 0 };

  it.each([
    ['reads again at once after changes', { hadChanges: true, consecutiveEmpty: 0 }, 0],
    ['waits an eighth of the ceiling after the first empty read', { hadChanges: false, consecutiveEmpty: 1 }, 13],
    ['doubles on the second empty read', { hadChanges: false, consecutiveEmpty: 2 }, 25],
    ['doubles again', { hadChanges: false, consecutiveEmpty: 3 }, 50],
    ['reaches the ceiling after rampSteps empty reads', { hadChanges: false, consecutiveEmpty: 4 }, 100],
    ['stays at the ceiling while idle', { hadChanges: false, consecutiveEmpty: 1000 }, 100],
  ])('opstream defaults: %s', (_name, outcome, expected) => {
    expect(nextPollDelayMs(outcome, opstream)).toBe(expected);
  });

  it('.NET profile: immediate after changes, full 5 s after any empty read', () => {
    expect(nextPollDelayMs({ hadChanges: true, consecutiveEmpty: 0 }, dotnet)).toBe(0);
    expect(nextPollDelayMs({ hadChanges: false, consecutiveEmpty: 1 }, dotnet)).toBe(5000);
  });

  it('never goes below the minimum', () => {
    const s = { minPollDelayMs: 40, maxPollDelayMs: 100, pollDelayRampSteps: 4 };
    expect(nextPollDelayMs({ hadChanges: true, consecutiveEmpty: 0 }, s)).toBe(40);
    expect(nextPollDelayMs({ hadChanges: false, consecutiveEmpty: 1 }, s)).toBe(40);
    expect(nextPollDelayMs({ hadChanges: false, consecutiveEmpty: 3 }, s)).toBe(50);
  });

  it('idle cost at the default ceiling is at most 10 reads per second per range', () => {
    const tracker = new PollDelay(opstream);
    let waited = 0;
    let reads = 0;
    while (waited < 60_000) {
      waited += tracker.afterRead(false);
      reads++;
    }
    expect(reads / 60).toBeLessThanOrEqual(10.1);
  });

  it('resets the ramp as soon as a read has changes', () => {
    const tracker = new PollDelay(opstream);
    expect([false, false, false].map((c) => tracker.afterRead(c))).toEqual([13, 25, 50]);
    expect(tracker.afterRead(true)).toBe(0);
    expect(tracker.afterRead(false)).toBe(13);
  });
});

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
      waited += tracker.afterRead(0, 100);
      reads++;
    }
    expect(reads / 60).toBeLessThanOrEqual(10.1);
  });

  it('reads on at once after a full page (a backlog), and the ramp starts over after it', () => {
    const tracker = new PollDelay(opstream);
    expect([0, 0, 0].map((n) => tracker.afterRead(n, 100))).toEqual([13, 25, 50]);
    expect(tracker.afterRead(100, 100)).toBe(0);
    expect(tracker.afterRead(0, 100)).toBe(13);
  });

  it('takes a page that is not full as caught up: the first step of the ramp, without the empty read', () => {
    const tracker = new PollDelay(opstream);
    expect(tracker.afterRead(0, 100)).toBe(13);
    expect(tracker.afterRead(0, 100)).toBe(25);
    expect(tracker.afterRead(3, 100)).toBe(13);
    expect(tracker.afterRead(0, 100)).toBe(25);
  });

  it('with no ramp, a page that is not full waits the ceiling: a change costs no read beyond its page', () => {
    const tracker = new PollDelay({ minPollDelayMs: 0, maxPollDelayMs: 100, pollDelayRampSteps: 0 });
    expect(tracker.afterRead(1, 100)).toBe(100);
    expect(tracker.afterRead(100, 100)).toBe(0);
    expect(tracker.afterRead(0, 100)).toBe(100);
  });
});

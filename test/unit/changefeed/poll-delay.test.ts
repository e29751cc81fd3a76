import { PollDelay, nextPollDelayMs } from '../../../src/changefeed/feed/poll-delay';
import { DEFAULTS } from '../../../src/changefeed/options';
import { ManualClock } from '../../../src/changefeed/util/clock';

const noWindow = { activeWindowMs: 0, activePollDelayMs: 0, clock: new ManualClock() };

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
    const tracker = new PollDelay({ ...opstream, ...noWindow });
    let waited = 0;
    let reads = 0;
    while (waited < 60_000) {
      waited += tracker.afterRead(0, 100);
      reads++;
    }
    expect(reads / 60).toBeLessThanOrEqual(10.1);
  });

  it('reads on at once after a full page (a backlog), and the ramp starts over after it', () => {
    const tracker = new PollDelay({ ...opstream, ...noWindow });
    expect([0, 0, 0].map((n) => tracker.afterRead(n, 100))).toEqual([13, 25, 50]);
    expect(tracker.afterRead(100, 100)).toBe(0);
    expect(tracker.afterRead(0, 100)).toBe(13);
  });

  it('takes a page that is not full as caught up: the first step of the ramp, without the empty read', () => {
    const tracker = new PollDelay({ ...opstream, ...noWindow });
    expect(tracker.afterRead(0, 100)).toBe(13);
    expect(tracker.afterRead(0, 100)).toBe(25);
    expect(tracker.afterRead(3, 100)).toBe(13);
    expect(tracker.afterRead(0, 100)).toBe(25);
  });

  it('with no ramp, a page that is not full waits the ceiling: a change costs no read beyond its page', () => {
    const tracker = new PollDelay({ minPollDelayMs: 0, maxPollDelayMs: 100, pollDelayRampSteps: 0, ...noWindow });
    expect(tracker.afterRead(1, 100)).toBe(100);
    expect(tracker.afterRead(100, 100)).toBe(0);
    expect(tracker.afterRead(0, 100)).toBe(100);
  });
});

describe('active window poll delay', () => {
  /** The library's defaults: 100 ms for 10 s after a change, then doubling up to 1 s. */
  function reader(
    settings: Partial<
      Record<'minPollDelayMs' | 'maxPollDelayMs' | 'activePollDelayMs' | 'activeWindowMs' | 'pollDelayRampSteps', number>
    > = {},
  ) {
    const clock = new ManualClock(1_000_000);
    const poll = new PollDelay({ ...DEFAULTS, ...settings, clock });
    /** One read of `changes` documents on a page of 100, then the pause it asks for, waited on the clock. */
    const read = (changes = 0): number => {
      const delay = poll.afterRead(changes, 100);
      clock.advance(delay);
      return delay;
    };
    return { clock, read };
  }

  it('defaults: an idle range polls at the 1 s ceiling, about one request a second', () => {
    expect(DEFAULTS).toMatchObject({ maxPollDelayMs: 1_000, activePollDelayMs: 100, activeWindowMs: 10_000 });
    const { clock, read } = reader();
    const start = clock.now();
    let reads = 0;
    while (clock.now() - start < 60_000) {
      expect(read()).toBe(1_000);
      reads++;
    }
    expect(reads).toBe(60);
  });

  it('polls every 100 ms for 10 s after the last change, then doubles up to the ceiling', () => {
    const { clock, read } = reader();
    expect(read(1)).toBe(100);
    const changedAt = clock.now() - 100;
    const inWindow: number[] = [];
    while (clock.now() - changedAt < 10_000) inWindow.push(read());
    expect(inWindow.length).toBe(99);
    expect(new Set(inWindow)).toEqual(new Set([100]));
    expect([read(), read(), read(), read(), read(), read()]).toEqual([200, 400, 800, 1_000, 1_000, 1_000]);
  });

  it('a change within the window starts it over', () => {
    const { clock, read } = reader();
    read(3);
    clock.advance(9_000);
    expect(read()).toBe(100);
    expect(read(2)).toBe(100);
    clock.advance(9_800);
    expect(read()).toBe(100);
    clock.advance(200);
    expect(read()).toBe(200);
  });

  it('a change after the window makes the range active again at once', () => {
    const { clock, read } = reader();
    read(1);
    clock.advance(60_000);
    expect(read()).toBe(200);
    expect(read()).toBe(400);
    expect(read(1)).toBe(100);
    expect(read()).toBe(100);
  });

  it('a full page (a backlog) is read on at once, in the window or not', () => {
    const { read } = reader();
    expect(read(100)).toBe(0);
    expect(read(100)).toBe(0);
    expect(read(5)).toBe(100);
  });

  it('caps the active pause at the ceiling and keeps it above the minimum', () => {
    expect(reader({ maxPollDelayMs: 50 }).read(1)).toBe(50);
    expect(reader({ minPollDelayMs: 150, maxPollDelayMs: 1_000 }).read(1)).toBe(150);
  });

  it('a 0 ms active pause reads back to back in the window and still climbs to the ceiling after it', () => {
    const { clock, read } = reader({ activePollDelayMs: 0, activeWindowMs: 1_000 });
    expect(read(1)).toBe(0);
    clock.advance(1_000);
    const climb = [read(), read(), read()];
    expect(climb).toEqual([2, 4, 8]);
    for (let i = 0; i < 20; i++) read();
    expect(read()).toBe(1_000);
  });

  it('with no window the ramp decides, as before', () => {
    const { read } = reader({ activeWindowMs: 0, maxPollDelayMs: 100, pollDelayRampSteps: 4 });
    expect([read(), read(), read(), read(), read()]).toEqual([13, 25, 50, 100, 100]);
    expect(read(2)).toBe(13);
  });

  it('idle cost over a bursty hour stays near the ceiling: the window costs polls only after changes', () => {
    const { clock, read } = reader();
    const start = clock.now();
    let reads = 0;
    // A burst of 6 changes 2 s apart every 10 minutes: each costs its window (~10 s at 100 ms) and the climb.
    let nextBurst = start;
    while (clock.now() - start < 3_600_000) {
      const burst = clock.now() >= nextBurst && clock.now() - nextBurst < 12_000 && (clock.now() - nextBurst) % 2_000 < 100;
      if (clock.now() - nextBurst >= 12_000) nextBurst += 600_000;
      read(burst ? 1 : 0);
      reads++;
    }
    const perSecond = reads / 3_600;
    expect(perSecond).toBeGreaterThan(1.0);
    expect(perSecond).toBeLessThan(1.5);
  });
});

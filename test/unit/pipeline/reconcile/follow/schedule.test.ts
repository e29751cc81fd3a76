import { FollowState, alignToTick, nextFollow } from '../../../../../src/pipeline/reconcile/follow/schedule';

const opts = { initialDelayMs: 250, maxDelayMs: 2000 };

describe('nextFollow', () => {
  it('checks soon after a change, then backs off by half again to the ceiling while nothing changes', () => {
    let state: FollowState = { unchanged: 0 };
    const delays: number[] = [];
    for (const s of ['pending', 'pending', 'pending', 'pending', 'pending', 'pending', 'pending']) {
      const next = nextFollow(opts, state, s);
      delays.push(next.delayMs);
      state = next.state;
    }
    expect(delays).toEqual([250, 375, 563, 844, 1266, 1898, 2000]);
  });

  it('starts over when the observed state changes', () => {
    let state: FollowState = { unchanged: 5, lastState: 'installing' };
    const next = nextFollow(opts, state, 'ready');
    expect(next.delayMs).toBe(250);
    state = next.state;
    expect(nextFollow(opts, state, 'ready').delayMs).toBe(375);
  });
});

describe('nextFollow after a learned first check', () => {
  it('backs off from the base the first check set, not from initialDelayMs', () => {
    let state: FollowState = { unchanged: 0, baseDelayMs: 600, lastState: 'Provisioning' };
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const next = nextFollow(opts, state, 'Provisioning');
      delays.push(next.delayMs);
      state = next.state;
    }
    expect(delays).toEqual([900, 1350, 2000, 2000]);
    expect(nextFollow(opts, state, 'Succeeded').delayMs).toBe(600);
  });
});

describe('alignToTick', () => {
  it('stretches a delay to the next multiple of the tick, by less than a tick', () => {
    expect(alignToTick(1500, 10_200, 1000)).toBe(1800);
    expect(alignToTick(800, 10_200, 1000)).toBe(800);
    expect(alignToTick(1, 10_999, 1000)).toBe(1);
    expect(alignToTick(1, 11_000, 1000)).toBe(1000);
  });

  it('leaves a delay alone when off or when the check is due now', () => {
    expect(alignToTick(1234, 10_200, 0)).toBe(1234);
    expect(alignToTick(0, 10_200, 1000)).toBe(0);
  });

  it('moves to the tick before rather than past the ceiling', () => {
    expect(alignToTick(10_000, 10_200, 1000, 10_000)).toBe(9800);
    expect(alignToTick(9_500, 10_200, 1000, 10_000)).toBe(9800);
    expect(alignToTick(9_900, 10_200, 1000, 10_000)).toBe(9800);
    // Nothing earlier than now: a delay below one tick is stretched even past a tiny ceiling.
    expect(alignToTick(300, 10_200, 1000, 100)).toBe(800);
  });

  it('wakes followers due within one tick together', () => {
    const wakes = [300, 450, 980].map((afterMs, i) => 20_000 + i * 7 + alignToTick(afterMs, 20_000 + i * 7, 1000));
    expect(new Set(wakes)).toEqual(new Set([21_000]));
  });
});

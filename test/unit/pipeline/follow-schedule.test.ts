import { FollowState, nextFollow } from '../../../src/pipeline/follow-schedule';

const opts = { initialDelayMs: 250, maxDelayMs: 2000 };

describe('nextFollow', () => {
  it('checks soon after a change, then doubles to the ceiling while nothing changes', () => {
    let state: FollowState = { unchanged: 0 };
    const delays: number[] = [];
    for (const s of ['pending', 'pending', 'pending', 'pending', 'pending', 'pending']) {
      const next = nextFollow(opts, state, s);
      delays.push(next.delayMs);
      state = next.state;
    }
    expect(delays).toEqual([250, 500, 1000, 2000, 2000, 2000]);
  });

  it('starts over when the observed state changes', () => {
    let state: FollowState = { unchanged: 5, lastState: 'installing' };
    const next = nextFollow(opts, state, 'ready');
    expect(next.delayMs).toBe(250);
    state = next.state;
    expect(nextFollow(opts, state, 'ready').delayMs).toBe(500);
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
    expect(delays).toEqual([1200, 2000, 2000, 2000]);
    expect(nextFollow(opts, state, 'Succeeded').delayMs).toBe(600);
  });
});

import { FirstCheckLearner } from '../../../../../src/pipeline/reconcile/follow/first-check-learner';
import { seededRandom } from '@opstream/frontend-simulator';

const base = { hitRatio: 0.8, startMs: 2500, minMs: 250, maxMs: 10_000 };

/** Feeds the learner operations of one kind whose durations come from `draw`; over the last `measured`: the share of first-check hits and the mean delay. */
function simulate(
  learner: FirstCheckLearner,
  draw: () => number,
  warmup: number,
  measured: number,
): { share: number; meanDelayMs: number } {
  let hits = 0;
  let delays = 0;
  for (let i = 0; i < warmup + measured; i++) {
    const delay = learner.delayMs('k');
    const hit = draw() <= delay;
    learner.record('k', hit);
    if (i < warmup) continue;
    delays += delay;
    if (hit) hits++;
  }
  return { share: hits / measured, meanDelayMs: delays / measured };
}

describe('FirstCheckLearner', () => {
  it('starts at startMs for a kind it has not seen, clamped to the bounds', () => {
    expect(new FirstCheckLearner(base).delayMs('x')).toBe(2500);
    expect(new FirstCheckLearner({ ...base, startMs: 50_000 }).delayMs('x')).toBe(10_000);
    expect(new FirstCheckLearner({ ...base, startMs: 1 }).delayMs('x')).toBe(250);
  });

  it('waits longer after a miss and a little less after a hit, each kind on its own', () => {
    const learner = new FirstCheckLearner(base);
    learner.record('slow', false);
    learner.record('fast', true);
    expect(learner.delayMs('slow')).toBeGreaterThan(2500);
    expect(learner.delayMs('fast')).toBeLessThan(2500);
    expect(2500 - learner.delayMs('fast')).toBeLessThan(learner.delayMs('slow') - 2500);
    expect(learner.delayMs('other')).toBe(2500);
    expect([...learner.snapshot().keys()].sort()).toEqual(['fast', 'slow']);
  });

  it('settles where about hitRatio of first checks find the operation finished', () => {
    const random = seededRandom(42);
    // Durations uniform in 2–8 s: the 0.8 quantile is 6.8 s.
    const learner = new FirstCheckLearner(base);
    const { share, meanDelayMs } = simulate(learner, () => 2000 + 6000 * random(), 200, 2000);
    expect(share).toBeGreaterThan(0.72);
    expect(share).toBeLessThan(0.88);
    expect(meanDelayMs).toBeGreaterThan(6000);
    expect(meanDelayMs).toBeLessThan(7600);
  });

  it('finds its footing fast when cold: short operations bring a fresh 5 s delay under 1.5 s within 20 of them (a fixed small step would still wait 2 s)', () => {
    const random = seededRandom(7);
    const learner = new FirstCheckLearner({ ...base, startMs: 5000 });
    simulate(learner, () => 300 + 700 * random(), 20, 0);
    expect(learner.delayMs('k')).toBeLessThan(1500);
  });

  it('takes large steps first and settles to small ones', () => {
    const learner = new FirstCheckLearner({ ...base, coldStep: 2, step: 0.3 });
    learner.record('k', false);
    const afterFirstMiss = learner.delayMs('k');
    expect(afterFirstMiss).toBe(10_000); // 2500 × e^(2 × 0.8) ≈ 12,400, clamped
    for (let i = 0; i < 100; i++) learner.record('k', i % 5 !== 0);
    const before = learner.delayMs('k');
    learner.record('k', false);
    expect(learner.delayMs('k') / before).toBeCloseTo(Math.exp(0.3 * 0.8), 1);
  });

  it('never waits longer than maxMs however slow operations are: the completion lag stays bounded', () => {
    const learner = new FirstCheckLearner(base);
    simulate(learner, () => 600_000, 0, 100);
    expect(learner.delayMs('k')).toBe(10_000);
  });

  it('never waits less than minMs however fast operations are', () => {
    const learner = new FirstCheckLearner(base);
    simulate(learner, () => 0, 0, 500);
    expect(learner.delayMs('k')).toBe(250);
  });

  it('rejects a hit ratio outside (0, 1) and inverted bounds with a clear message', () => {
    expect(() => new FirstCheckLearner({ ...base, hitRatio: 1 })).toThrow(/hitRatio must be between 0 and 1/);
    expect(() => new FirstCheckLearner({ ...base, minMs: 20_000 })).toThrow(/minMs \(20000\) must not exceed maxMs/);
  });
});

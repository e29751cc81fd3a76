import { LateWrites, type LateAttempt } from '../../../src/cosmos/late-writes';
import { ManualTimers } from '../../helpers/manual-timers';

const BACKOFF = { retries: Infinity, initialDelayMs: 100, maxDelayMs: 400, multiplier: 2, jitter: 0 };

describe('LateWrites', () => {
  it('tries again with growing delays until the attempt is done', async () => {
    const clock = new ManualTimers();
    const late = new LateWrites({ clock, backoff: BACKOFF });
    const at: number[] = [];
    const results: LateAttempt[] = ['again', 'again', 'again', 'done'];
    expect(late.add('dl-1', async () => (at.push(clock.now()), results.shift() ?? 'done'))).toBe(true);
    await clock.advance(2000);
    expect(at).toEqual([100, 300, 700, 1100]);
    expect(late.size).toBe(0);
  });

  it('a throwing attempt is tried again, not lost', async () => {
    const clock = new ManualTimers();
    const late = new LateWrites({ clock, backoff: BACKOFF });
    let calls = 0;
    late.add('dl-1', async () => {
      if (++calls === 1) throw new Error('socket hang up');
      return 'done';
    });
    await clock.advance(1000);
    expect(calls).toBe(2);
    expect(late.size).toBe(0);
  });

  it('keeps one retry per key and refuses past its bound', async () => {
    const clock = new ManualTimers();
    const late = new LateWrites({ clock, backoff: BACKOFF, maxPending: 2 });
    const attempt = async (): Promise<LateAttempt> => 'again';
    expect(late.add('a', attempt)).toBe(true);
    expect(late.add('a', attempt)).toBe(false);
    expect(late.add('b', attempt)).toBe(true);
    expect(late.add('c', attempt)).toBe(false);
    expect(late.size).toBe(2);
  });

  it('clear forgets what is pending: no attempt runs after it', async () => {
    const clock = new ManualTimers();
    const late = new LateWrites({ clock, backoff: BACKOFF });
    let calls = 0;
    late.add('a', async () => (calls++, 'again'));
    await clock.advance(100);
    late.clear();
    await clock.advance(10_000);
    expect(calls).toBe(1);
    expect(clock.scheduled).toBe(0);
  });
});

import { FollowBook } from '../../../../../src/pipeline/reconcile/follow/follow-book';

describe('FollowBook: the follow memory per operation and the events that wake it', () => {
  const CLUSTER = '/api/clusters_mgmt/v1/clusters/c1';
  let now = 1_000;
  const clock = { now: () => now };

  it('an event in a state that can end the operation wakes the follows that watch its object, and only those', () => {
    const book = new FollowBook(clock);
    Object.assign(book.begin('op-1'), { watch: { href: CLUSTER, wakeOn: ['ready', 'error'] } });
    Object.assign(book.begin('op-2'), { watch: { href: `${CLUSTER}x`, wakeOn: ['ready', 'error'] } });
    book.begin('op-3');
    expect(book.wake({ href: CLUSTER, state: 'installing' })).toEqual(new Set());
    expect(book.of('op-1')?.woken).toBeUndefined();
    expect(book.wake({ href: CLUSTER, state: 'ready' })).toEqual(new Set(['op-1']));
    expect(book.of('op-1')?.woken).toBe(true);
    expect(book.of('op-2')?.woken).toBeUndefined();
  });

  it('begin keeps the memory between handlings until forget', () => {
    const book = new FollowBook(clock);
    const first = book.begin('op-1');
    first.unchanged = 3;
    expect(book.begin('op-1')).toBe(first);
    book.forget('op-1');
    expect(book.of('op-1')).toBeUndefined();
    expect(book.begin('op-1')).toEqual({ unchanged: 0 });
  });

  it('an event that arrived during the handling, before its watch was set, still wakes it; an older one does not', () => {
    const book = new FollowBook(clock);
    now = 5_000;
    book.wake({ href: CLUSTER, state: 'ready' });
    const follow = book.begin('op-1');
    follow.watch = { href: CLUSTER, wakeOn: ['ready'] };
    expect(book.missedSince(follow, 5_001)).toBeUndefined();
    expect(follow.woken).toBeUndefined();
    expect(book.missedSince(follow, 5_000)).toBe('ready');
    expect(follow.woken).toBe(true);
    const other = book.begin('op-2');
    other.watch = { href: CLUSTER, wakeOn: ['deleted'] };
    expect(book.missedSince(other, 0)).toBeUndefined();
  });
});

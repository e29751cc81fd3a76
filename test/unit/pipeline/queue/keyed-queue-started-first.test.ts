import { FRESH_TURN_EVERY, KeyedQueue } from '../../../../src/pipeline/queue/keyed-queue';

interface Op {
  status: 'Accepted' | 'Provisioning';
}

/** Keys in line, taken one after the other (each released and forgotten at once). */
function drain(q: KeyedQueue<Op>): string[] {
  const order: string[] = [];
  for (let key = q.take(); key !== undefined; key = q.take()) order.push(key);
  return order;
}

describe('KeyedQueue with startedFirst', () => {
  it('hands out keys with started work before keys with new work only, each line first come first served', () => {
    const q = new KeyedQueue<Op>({ startedFirst: true, started: (op) => op.status === 'Provisioning' });
    void q.add('new-1', 'a', { status: 'Accepted' }, 0);
    void q.add('started-1', 'b', { status: 'Provisioning' }, 0);
    void q.add('new-2', 'c', { status: 'Accepted' }, 0);
    void q.add('started-2', 'd', { status: 'Provisioning' }, 0);
    expect(q.waiting).toEqual({ started: 2, fresh: 2 });
    expect(drain(q)).toEqual(['started-1', 'started-2', 'new-1', 'new-2']);
  });

  it('an item handled here before counts as started, whatever it says of itself', () => {
    const q = new KeyedQueue<Op>({ startedFirst: true });
    void q.add('new', 'a', { status: 'Accepted' }, 0);
    void q.add('followed', 'b', { status: 'Accepted' }, 0);
    expect(q.take()).toBe('new');
    expect(q.take()).toBe('followed');
    q.due('followed', 0)[0][1].handled = true; // what the scheduler marks after a handling
    q.release('followed');
    q.release('new');
    void q.add('newer', 'c', { status: 'Accepted' }, 0);
    q.markReady('new');
    q.markReady('followed');
    expect(drain(q)).toEqual(['followed', 'newer', 'new']);
  });

  it(`new work still gets one turn in ${FRESH_TURN_EVERY} while started work waits`, () => {
    const q = new KeyedQueue<Op>({ startedFirst: true, started: (op) => op.status === 'Provisioning' });
    for (let i = 0; i < 30; i++) void q.add(`s${i}`, 'x', { status: 'Provisioning' }, 0);
    for (let i = 0; i < 3; i++) void q.add(`n${i}`, 'x', { status: 'Accepted' }, 0);
    const order = drain(q);
    const turns = (key: string): number => order.indexOf(key);
    expect(turns('n0')).toBe(FRESH_TURN_EVERY - 1);
    expect(turns('n1')).toBe(2 * FRESH_TURN_EVERY - 1);
    expect(turns('n2')).toBe(3 * FRESH_TURN_EVERY - 1);
    expect(order).toHaveLength(33);
  });

  it('off (the default): one line in the order keys became ready', () => {
    const q = new KeyedQueue<Op>({ started: (op) => op.status === 'Provisioning' });
    void q.add('new-1', 'a', { status: 'Accepted' }, 0);
    void q.add('started-1', 'b', { status: 'Provisioning' }, 0);
    expect(drain(q)).toEqual(['new-1', 'started-1']);
  });

  it('keeps a long line in order while it is taken from and added to (the line compacts itself)', () => {
    const q = new KeyedQueue<Op>({ startedFirst: true });
    const taken: string[] = [];
    for (let i = 0; i < 5000; i++) {
      void q.add(`k${i}`, 'x', { status: 'Accepted' }, 0);
      if (i % 2 === 1) taken.push(q.take()!);
    }
    taken.push(...drain(q));
    expect(taken).toEqual(Array.from({ length: 5000 }, (_, i) => `k${i}`));
    expect(q.hasReady).toBe(false);
  });
});

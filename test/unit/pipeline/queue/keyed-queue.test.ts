import { KeyedQueue } from '../../../../src/pipeline/queue/keyed-queue';

describe('KeyedQueue', () => {
  it('hands a key to one worker at a time: a taken key is not in line again until released', () => {
    const q = new KeyedQueue<number>();
    void q.add('r1', 'a', 1, 0);
    expect(q.take()).toBe('r1');
    void q.add('r1', 'b', 2, 0);
    expect(q.take()).toBeUndefined();
    expect(q.release('r1')).toBe(0); // both items are due: the caller wakes it again at once
    expect(q.markReady('r1')).toBe(true);
    expect(q.take()).toBe('r1');
  });

  it('expedites by id whatever else it holds: an item forgotten, removed or cleared is no longer found, one added again is', () => {
    const q = new KeyedQueue<number>();
    for (let i = 0; i < 1000; i++) void q.add(`r${i % 100}`, `op${i}`, i, 0);
    const park = (key: string, id: string): void => void (q.due(key, 0).find(([d]) => d === id)![1].dueAt = 5000);
    park('r7', 'op7');
    park('r8', 'op8');
    expect(q.expedite(new Set(['op7', 'op8', 'op107', 'nope']), 10)).toEqual({ found: 3, woken: ['r7', 'r8'] });
    q.forget('r7', 'op7');
    q.remove((_key, id) => id === 'op8');
    expect(q.expedite(new Set(['op7', 'op8']), 20)).toEqual({ found: 0, woken: [] });
    void q.add('r7', 'op7', 7, 0);
    park('r7', 'op7');
    expect(q.expedite(new Set(['op7']), 30)).toEqual({ found: 1, woken: ['r7'] });
    q.clear();
    expect(q.expedite(new Set(['op7', 'op107']), 40)).toEqual({ found: 0, woken: [] });
  });

  it('keys go to workers in the order they became ready', () => {
    const q = new KeyedQueue<number>();
    for (const k of ['r2', 'r1', 'r3']) void q.add(k, 'x', 0, 0);
    expect([q.take(), q.take(), q.take(), q.take()]).toEqual(['r2', 'r1', 'r3', undefined]);
  });

  it('replacing an item keeps one entry, due now, with a new version', () => {
    const q = new KeyedQueue<string>();
    void q.add('r1', 'a', 'v1', 0);
    const [[, first]] = q.due('r1', 0);
    first.dueAt = 5000; // parked
    void q.add('r1', 'a', 'v2', 100);
    expect(q.size).toBe(1);
    const [[, entry]] = q.due('r1', 100);
    expect(entry).toBe(first);
    expect(entry).toMatchObject({ item: 'v2', dueAt: 100, version: 2 });
    expect(entry.waiters).toHaveLength(2);
  });

  it('gives the due items of a key in order, leaving those not yet due', () => {
    const q = new KeyedQueue<{ start: string }>({ order: (a, b) => a.start.localeCompare(b.start) });
    void q.add('r1', 'late', { start: '2026-12-01T10:00:02Z' }, 0);
    void q.add('r1', 'early', { start: '2026-12-01T10:00:01Z' }, 0);
    void q.add('r1', 'parked', { start: '2026-12-01T10:00:00Z' }, 0);
    q.due('r1', 0).find(([id]) => id === 'parked')![1].dueAt = 1000;
    expect(q.due('r1', 10).map(([id]) => id)).toEqual(['early', 'late']);
    expect(q.due('r1', 1000).map(([id]) => id)).toEqual(['parked', 'early', 'late']);
  });

  it('tells when the earliest remaining item of a released key falls due, and forgets an empty key', () => {
    const q = new KeyedQueue<number>();
    void q.add('r1', 'a', 1, 0);
    void q.add('r1', 'b', 2, 0);
    q.take();
    const due = q.due('r1', 0);
    due[0][1].dueAt = 700;
    due[1][1].dueAt = 300;
    expect(q.release('r1')).toBe(300);
    q.forget('r1', 'a');
    q.forget('r1', 'b');
    expect(q.nextDue('r1')).toBeUndefined();
    expect(q.keys()).toEqual([]);
  });

  it('remove hands back what matched and leaves the rest', () => {
    const q = new KeyedQueue<{ range: string }>();
    void q.add('r1', 'a', { range: 'A' }, 0);
    void q.add('r2', 'b', { range: 'B' }, 0);
    const removed = q.remove((_k, _id, item) => item.range === 'A');
    expect(removed.map((r) => r.id)).toEqual(['a']);
    expect(q.holds('r1', 'a', removed[0].entry)).toBe(false);
    expect(q.size).toBe(1);
  });

  it('clear returns every entry so their waiters can be told', () => {
    const q = new KeyedQueue<number>();
    void q.add('r1', 'a', 1, 0);
    void q.add('r2', 'b', 2, 0);
    expect(q.clear()).toHaveLength(2);
    expect(q.size).toBe(0);
    expect(q.take()).toBeUndefined();
  });

  it('counts items as they are added, replaced, forgotten and removed (size is read on every enqueue)', () => {
    const q = new KeyedQueue<number>();
    void q.add('r1', 'a', 1, 0);
    void q.add('r1', 'a', 2, 0); // replaced, not added
    void q.add('r1', 'b', 3, 0);
    void q.add('r2', 'c', 4, 0);
    expect(q.size).toBe(3);
    q.forget('r1', 'a');
    q.forget('r1', 'a'); // already gone
    q.forget('nope', 'x');
    expect(q.size).toBe(2);
    q.remove((_k, id) => id === 'c');
    expect(q.size).toBe(1);
    expect(q.size).toBe([...q.entries()].length);
  });
});

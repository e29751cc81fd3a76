import { ReportedStates } from '../../../src/pipeline/reported-states';

describe('ReportedStates: the newest state Clusters Service events reported per object', () => {
  it("keeps the newest by the event's time, whatever the arrival order", () => {
    const states = new ReportedStates();
    states.note({ href: '/c/1', state: 'uninstalling', time: 2_000 });
    states.note({ href: '/c/1', state: 'ready', time: 1_000 });
    expect(states.latest('/c/1')).toBe('uninstalling');
    states.note({ href: '/c/1', state: 'deleted', time: 3_000 });
    expect(states.latest('/c/1')).toBe('deleted');
  });

  it('a duplicate changes nothing; an event without a time replaces only what has none either', () => {
    const states = new ReportedStates();
    states.note({ href: '/c/1', state: 'ready', time: 1_000 });
    states.note({ href: '/c/1', state: 'ready', time: 1_000 });
    expect(states.latest('/c/1')).toBe('ready');
    states.note({ href: '/c/1', state: 'pending' });
    expect(states.latest('/c/1')).toBe('ready');
    states.note({ href: '/c/2', state: 'pending' });
    states.note({ href: '/c/2', state: 'installing' });
    expect(states.latest('/c/2')).toBe('installing');
  });

  it('knows nothing of an object no event named, and forgets the least recently changed beyond its capacity', () => {
    const states = new ReportedStates(2);
    expect(states.latest('/c/1')).toBeUndefined();
    states.note({ href: '/c/1', state: 'ready', time: 1 });
    states.note({ href: '/c/2', state: 'ready', time: 1 });
    states.note({ href: '/c/1', state: 'updating', time: 2 });
    states.note({ href: '/c/3', state: 'ready', time: 1 });
    expect(states.latest('/c/2')).toBeUndefined();
    expect(states.latest('/c/1')).toBe('updating');
    expect(states.latest('/c/3')).toBe('ready');
  });
});

describe('ReportedStates is bounded in bytes as well as entries', () => {
  it('forgets the oldest entries once the strings it holds pass its byte bound', () => {
    const states = new ReportedStates(10_000, 64 * 1024);
    const href = (i: number): string => `/api/clusters_mgmt/v1/clusters/${String(i).padStart(32, '0')}/node_pools/${'n'.repeat(150)}`;
    for (let i = 0; i < 1_000; i++) states.note({ href: href(i), state: 'ready', time: i });
    expect(states.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(states.latest(href(999))).toBe('ready');
    expect(states.latest(href(0))).toBeUndefined();
  });

  it('by default, 10,000 entries of the longest fields the schema allows stay within 4 MiB; a real-sized table is whole', () => {
    const states = new ReportedStates();
    for (let i = 0; i < 10_000; i++)
      states.note({ href: `${'h'.repeat(250)}${String(i).padStart(6, '0')}`, state: 's'.repeat(64), time: i });
    expect(states.bytes).toBeLessThanOrEqual(4 * 2 ** 20);
    const real = new ReportedStates();
    const href = (i: number): string => `/api/clusters_mgmt/v1/clusters/${String(i).padStart(32, '0')}`;
    for (let i = 0; i < 10_000; i++) real.note({ href: href(i), state: 'installing', time: i });
    expect(real.latest(href(0))).toBe('installing');
  });
});

import { ReportedStates } from '../../../../../src/pipeline/reconcile/follow/reported-states';

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

import { Faults, parseFaultRules } from '@opstream/cosmos-emulator/faults';

describe('fault rules', () => {
  it('decides in order: latency, drop, throttle, unavailable; first matching live rule wins', () => {
    const f = new Faults(() => 0);
    f.set(parseFaultRules([{ kinds: ['write'], latencyMs: 5, throttleRate: 1, retryAfterMs: 7 }, { unavailableRate: 1 }]));
    expect(f.decide('POST', '/dbs/d/colls/c/docs', 'write')).toEqual({ action: 'throttle', latencyMs: 5, retryAfterMs: 7 });
    expect(f.decide('GET', '/dbs/d/colls/c/docs/x', 'pointRead')).toEqual({ action: 'unavailable', latencyMs: 0 });
  });

  it('respects rates with the injected random source', () => {
    let r = 0.6;
    const f = new Faults(() => r);
    f.set(parseFaultRules({ throttleRate: 0.5 }));
    expect(f.decide('GET', '/', 'metadata').action).toBe('none');
    r = 0.4;
    expect(f.decide('GET', '/', 'metadata').action).toBe('throttle');
  });

  it('filters by method and path, and stops after count', () => {
    const f = new Faults(() => 0);
    f.set(parseFaultRules({ dropRate: 1, method: 'delete', path: '/docs/a$', count: 2 }));
    expect(f.decide('GET', '/dbs/d/colls/c/docs/a', 'pointRead').action).toBe('none');
    expect(f.decide('DELETE', '/dbs/d/colls/c/docs/b', 'write').action).toBe('none');
    expect(f.decide('DELETE', '/dbs/d/colls/c/docs/a', 'write').action).toBe('drop');
    expect(f.list()).toEqual([{ dropRate: 1, method: 'DELETE', path: '/docs/a$', count: 1 }]);
    expect(f.decide('DELETE', '/dbs/d/colls/c/docs/a', 'write').action).toBe('drop');
    expect(f.decide('DELETE', '/dbs/d/colls/c/docs/a', 'write').action).toBe('none');
    expect(f.list()).toEqual([]);
  });

  it('validates rules', () => {
    for (const bad of [
      { throttleRate: -1 },
      { dropRate: 'often' },
      { latencyMs: -5 },
      { path: '[' },
      { kinds: ['x'] },
      { method: 3 },
      'nope',
    ]) {
      expect(() => parseFaultRules(bad)).toThrow(expect.objectContaining({ status: 400 }));
    }
  });
});

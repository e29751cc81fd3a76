import { FaultInjector, InvalidFaultError, seededRandom } from '@opstream/clusters-service-simulator/faults';

describe('simulator fault rules', () => {
  it('the first matching error wins, latencies add up, other endpoints are untouched', () => {
    const f = new FaultInjector(seededRandom(1));
    f.add({ kind: 'latency', latencyMs: 30 });
    f.add({ kind: 'error', endpoint: 'GET /clusters/{id}', status: 500 });
    f.add({ kind: 'error', endpoint: 'GET /clusters/{id}', status: 503 });
    f.add({ kind: 'latency', endpoint: 'GET /clusters/{id}', latencyMs: 20 });
    expect(f.plan('GET /clusters/{id}')).toEqual({ latencyMs: 50, outcome: { kind: 'error', status: 500 } });
    expect(f.plan('POST /clusters')).toEqual({ latencyMs: 30 });
  });

  it('a rule with times expires after that many calls', () => {
    const f = new FaultInjector(seededRandom(1));
    f.add({ kind: 'drop-response', endpoint: 'POST /clusters', times: 2 });
    expect(f.plan('POST /clusters').outcome).toEqual({ kind: 'drop-response' });
    expect(f.plan('POST /clusters').outcome).toEqual({ kind: 'drop-response' });
    expect(f.plan('POST /clusters').outcome).toBeUndefined();
    expect(f.list()).toEqual([]);
  });

  it('a rate applies to about that fraction of calls, the same way for the same seed', () => {
    const run = (): number[] => {
      const f = new FaultInjector(seededRandom(42));
      f.add({ kind: 'error', rate: 0.3 });
      return Array.from({ length: 1000 }, () => (f.plan('GET /clusters').outcome ? 1 : 0));
    };
    const first = run();
    const hits = first.reduce<number>((a, b) => a + b, 0);
    expect(hits).toBeGreaterThan(230);
    expect(hits).toBeLessThan(370);
    expect(run()).toEqual(first);
  });

  it.each([
    [{ kind: 'explode' }, 'fault kind'],
    [{ kind: 'error', status: 200 }, 'HTTP error status'],
    [{ kind: 'latency' }, 'latencyMs'],
    [{ kind: 'error', rate: 2 }, 'between 0 and 1'],
    [{ kind: 'error', times: 0 }, 'positive integer'],
  ])('rejects %j with a message saying what to fix', (rule, message) => {
    const f = new FaultInjector(seededRandom(1));
    expect(() => f.add(rule as never)).toThrow(InvalidFaultError);
    expect(() => f.add(rule as never)).toThrow(message);
  });
});

import { DEFAULTS, resolveOptions } from '../../../src/changefeed/options';
import { ChangeFeedConfigurationError } from '../../../src/changefeed/errors';

describe('change feed processor options', () => {
  it('fills every default from the one DEFAULTS constant', () => {
    const o = resolveOptions({ processorName: 'ops' });
    expect(o.leaseAcquireIntervalMs).toBe(DEFAULTS.leaseAcquireIntervalMs);
    expect(o.leaseRenewIntervalMs).toBe(DEFAULTS.leaseRenewIntervalMs);
    expect(o.leaseExpirationMs).toBe(DEFAULTS.leaseExpirationMs);
    expect(o.minPollDelayMs).toBe(0);
    expect(o.maxPollDelayMs).toBe(DEFAULTS.maxPollDelayMs);
    expect(o.startFrom).toBe('now');
    expect(o.handlerRetry).toEqual(DEFAULTS.handlerRetry);
    expect(o.instanceName).toMatch(/^.+-\d+-[0-9a-f]{6}$/);
  });

  it('merges a partial retry policy over the default one', () => {
    const o = resolveOptions({ processorName: 'ops', handlerRetry: { retries: 1 } as never });
    expect(o.handlerRetry).toEqual({ ...DEFAULTS.handlerRetry, retries: 1 });
  });

  it('default instance names differ between processors of one process', () => {
    const a = resolveOptions({ processorName: 'ops' }).instanceName;
    const b = resolveOptions({ processorName: 'ops' }).instanceName;
    expect(a).not.toBe(b);
  });

  const cases: Array<[string, object, RegExp]> = [
    ['missing processorName', {}, /processorName must be a non-empty string/],
    ['processorName with a slash', { processorName: 'a/b' }, /refuses in lease ids; remove them/],
    [
      'renew not below expiration',
      { processorName: 'p', leaseRenewIntervalMs: 30_000, leaseExpirationMs: 30_000 },
      /leaseRenewIntervalMs \(30000\) must be below leaseExpirationMs \(30000\).*e\.g\. leaseRenewIntervalMs: 10000/,
    ],
    [
      'min poll delay above max',
      { processorName: 'p', minPollDelayMs: 500, maxPollDelayMs: 100 },
      /minPollDelayMs \(500\) must not exceed maxPollDelayMs \(100\)/,
    ],
    [
      'stall bound not above read timeout',
      { processorName: 'p', readTimeoutMs: 1000, stallTimeoutMs: 1000 },
      /stallTimeoutMs \(1000\) must exceed readTimeoutMs \(1000\).*e\.g\. stallTimeoutMs: 4000/,
    ],
    ['fractional maxItemCount', { processorName: 'p', maxItemCount: 1.5 }, /maxItemCount must be an integer >= 1/],
    [
      'negative interval',
      { processorName: 'p', leaseAcquireIntervalMs: -1 },
      /leaseAcquireIntervalMs must be an integer >= 1.*milliseconds/,
    ],
    ['zero poison attempts', { processorName: 'p', poisonAttempts: 0 }, /poisonAttempts must be an integer >= 1/],
    ['bad start', { processorName: 'p', startFrom: 'yesterday' }, /startFrom must be 'beginning', 'now' or \{ time: <valid Date> \}/],
    ['invalid start date', { processorName: 'p', startFrom: { time: new Date('nope') } }, /startFrom must be/],
    [
      'retry policy with inverted delays',
      { processorName: 'p', engineRetry: { initialDelayMs: 500, maxDelayMs: 100 } },
      /engineRetry\.maxDelayMs \(100\) must be >= engineRetry\.initialDelayMs \(500\)/,
    ],
    [
      'zero leases per instance',
      { processorName: 'p', maxLeasesPerInstance: 0 },
      /maxLeasesPerInstance must be an integer >= 1 \(or Infinity\)/,
    ],
  ];
  it.each(cases)('rejects %s with a message saying how to fix it', (_name, options, message) => {
    expect(() => resolveOptions(options as never)).toThrow(ChangeFeedConfigurationError);
    expect(() => resolveOptions(options as never)).toThrow(message);
  });

  it('accepts a start time and Infinity limits', () => {
    const time = new Date('2024-01-01T00:00:00Z');
    const o = resolveOptions({ processorName: 'p', startFrom: { time }, maxLeasesPerInstance: Infinity, leasesAcquiredPerCycle: Infinity });
    expect(o.startFrom).toEqual({ time });
  });
});

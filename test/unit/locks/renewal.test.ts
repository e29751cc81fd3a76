import { expiryEstimateMs, renewalDueMs } from '../../../src/locks/renewal';
import { LockOptionsError, SUBSCRIPTION_LOCK_DEFAULTS } from '../../../src/locks';
import { resolveLockOptions } from '../../../src/locks/options';

describe('lock renewal timing', () => {
  it.each([
    // sentAt, _ts (s), ttl (s), margin → renew at
    ['defaults: sentAt − 1 s is earlier than _ts', 100_500, 100, 10, 1000, 108_500],
    ['_ts earlier (our clock ahead of the server)', 100_500, 95, 10, 1000, 104_000],
    ['no _ts in the answer', 100_500, undefined, 10, 1000, 108_500],
    ['short test TTL', 50_000, 50, 3, 500, 51_500],
  ])('%s', (_name, sentAtMs, tsSeconds, ttlSeconds, margin, due) => {
    expect(renewalDueMs({ sentAtMs, tsSeconds, ttlSeconds }, margin)).toBe(due);
  });

  it('the expiry estimate never exceeds the real expiry, whatever the truncation of _ts', () => {
    for (let writeMs = 100_000; writeMs < 102_000; writeMs += 97) {
      const ts = Math.floor(writeMs / 1000);
      const realExpiry = (ts + 10) * 1000;
      const estimate = expiryEstimateMs({ sentAtMs: writeMs - 3, tsSeconds: ts, ttlSeconds: 10 });
      expect(estimate).toBeLessThanOrEqual(realExpiry);
      expect(realExpiry - estimate).toBeLessThanOrEqual(1003);
    }
  });
});

describe('lock options', () => {
  it('defaults: 10 s TTL, renew 1 s early, retry acquire with backoff (20 ms doubling to 500 ms) for one TTL', () => {
    const o = resolveLockOptions({ owner: 'me' });
    expect(o).toMatchObject({ owner: 'me', ...SUBSCRIPTION_LOCK_DEFAULTS, acquireTimeoutMs: 10_000 });
    expect(resolveLockOptions({}).owner).toMatch(/-\d+-[0-9a-f]{6}$/);
  });

  it.each([
    [{ ttlSeconds: 1 }, 'ttlSeconds must be a whole number >= 2'],
    [{ ttlSeconds: 2.5 }, 'ttlSeconds must be a whole number >= 2'],
    [{ ttlSeconds: 2, renewMarginMs: 950 }, 'renewMarginMs must be between 0 and 900 for ttlSeconds=2'],
    [{ renewMarginMs: -1 }, 'renewMarginMs must be between 0 and 8900'],
    [{ acquireRetryBaseMs: 0 }, 'acquireRetryBaseMs must be a positive number'],
    [{ acquireRetryMaxMs: Infinity }, 'acquireRetryMaxMs must be a positive number'],
    [{ acquireRetryBaseMs: 600 }, 'acquireRetryBaseMs (600) must not exceed acquireRetryMaxMs (500)'],
    [{ acquireTimeoutMs: -5 }, 'acquireTimeoutMs must be a positive number'],
  ])('reject %j saying how to fix it', (options, message) => {
    expect(() => resolveLockOptions(options)).toThrow(LockOptionsError);
    expect(() => resolveLockOptions(options)).toThrow(message);
  });
});

import { meaningOf } from '../../../src/arm/notification-answer';

/** ARM's answers as ARM documents them: 2xx delivered; 408, 429, 5xx later; redirects and other 4xx final. */
describe('meaningOf (an answer to an ARM notification)', () => {
  it.each([200, 201, 202, 204])('%i: delivered', (status) => {
    expect(meaningOf(status)).toEqual({ kind: 'delivered' });
  });

  it.each([
    [408, 'throttled'],
    [429, 'throttled'],
    [500, 'server-error'],
    [502, 'server-error'],
    [503, 'server-error'],
    [504, 'server-error'],
  ])('%i: retried later (%s)', (status, reason) => {
    expect(meaningOf(status)).toEqual({ kind: 'retry', reason });
  });

  it.each([301, 302, 303, 307, 308])('%i: final, the redirect is not followed', (status) => {
    expect(meaningOf(status)).toEqual({ kind: 'final', reason: 'redirect' });
  });

  it.each([400, 401, 403, 404, 405, 409, 410, 413, 422])('%i: final', (status) => {
    expect(meaningOf(status)).toEqual({ kind: 'final', reason: 'rejected' });
  });

  it('honours Retry-After in seconds or as an HTTP date', () => {
    const now = Date.parse('2026-12-01T10:00:00Z');
    expect(meaningOf(429, '7', now)).toEqual({ kind: 'retry', reason: 'throttled', retryAfterMs: 7000 });
    expect(meaningOf(503, 'Tue, 01 Dec 2026 10:01:00 GMT', now)).toEqual({ kind: 'retry', reason: 'server-error', retryAfterMs: 60_000 });
    expect(meaningOf(503, 'soon', now)).toEqual({ kind: 'retry', reason: 'server-error' });
  });
});

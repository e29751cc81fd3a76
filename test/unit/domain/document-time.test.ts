import { claimHeldUntil, parseDocumentTime, pastTime, UnreadableTimeError } from '../../../src/domain/document-time';

describe('document times', () => {
  it.each([
    ['2026-12-31T23:59:60Z', Date.parse('2027-01-01T00:00:00Z')],
    ['2026-12-31T23:59:60.5Z', Date.parse('2027-01-01T00:00:00.5Z')],
    ['2016-12-31T23:59:60+01:00', Date.parse('2016-12-31T23:00:00Z')],
    ['9999-12-31T23:59:59Z', Date.parse('9999-12-31T23:59:59Z')],
    ['0001-01-01T00:00:00Z', Date.parse('0001-01-01T00:00:00Z')],
    ['2026-03-02T10:00:00.123456789-14:00', Date.parse('2026-03-03T00:00:00.123Z')],
  ])('%s is read as a finite instant', (value, expected) => {
    expect(parseDocumentTime(value)).toBe(expected);
    expect(Number.isFinite(parseDocumentTime(value))).toBe(true);
  });

  it('a time that is no RFC 3339 time is reported as such, never NaN', () => {
    expect(() => parseDocumentTime('yesterday')).toThrow(UnreadableTimeError);
  });

  it('a past time is as written; one in the future counts as now', () => {
    const now = Date.parse('2026-12-04T12:00:00Z');
    expect(pastTime('2026-12-04T11:00:00Z', now)).toBe(now - 3_600_000);
    expect(pastTime('9999-12-31T23:59:59Z', now)).toBe(now);
  });

  it('a claim holds until its time, unless it reaches more than twice its length beyond now', () => {
    const now = Date.parse('2026-12-04T12:00:00Z');
    expect(claimHeldUntil('2026-12-04T12:00:30Z', now, 30_000)).toBe(now + 30_000);
    expect(claimHeldUntil('2026-12-04T12:00:59Z', now, 30_000)).toBe(now + 59_000);
    expect(claimHeldUntil('9999-12-31T23:59:59Z', now, 30_000)).toBe(now);
    expect(claimHeldUntil('2026-12-04T11:00:00Z', now, 30_000)).toBe(now - 3_600_000);
  });
});

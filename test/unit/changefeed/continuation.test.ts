import { etagOfLsn, lsnOfEtag, parseSdkContinuation, sortRanges, toSdkContinuation } from '../../../src/changefeed/feed/continuation';

describe('continuation conversion between lease etags and SDK tokens', () => {
  it('builds the SDK JSON token from a lease etag, quotes kept', () => {
    const token = toSdkContinuation('rVJzAJcSwq0=', [{ min: '10', max: '20', etag: '"42"' }]);
    expect(JSON.parse(token)).toEqual({
      rid: 'rVJzAJcSwq0=',
      Continuation: [{ minInclusive: '10', maxExclusive: '20', continuationToken: '"42"' }],
    });
  });

  it('writes a never-checkpointed lease as an empty token (SDK reads it from the beginning)', () => {
    const token = toSdkContinuation('rid', [{ min: '', max: 'FF', etag: null }]);
    expect(JSON.parse(token).Continuation[0].continuationToken).toBe('');
  });

  it('round-trips, reading "" back as null', () => {
    const ranges = [
      { min: '', max: '10', etag: '"7"' },
      { min: '10', max: '20', etag: null },
    ];
    expect(parseSdkContinuation(toSdkContinuation('rid', ranges))).toEqual({ rid: 'rid', ranges });
  });

  it('parses the token the SDK produces after a split (one entry per child)', () => {
    const sdk =
      '{"rid":"abc=","Continuation":[{"minInclusive":"18","maxExclusive":"20","continuationToken":"\\"40\\""},{"minInclusive":"10","maxExclusive":"18","continuationToken":"\\"45\\""}]}';
    const parsed = parseSdkContinuation(sdk);
    expect(sortRanges(parsed.ranges)).toEqual([
      { min: '10', max: '18', etag: '"45"' },
      { min: '18', max: '20', etag: '"40"' },
    ]);
  });

  it('refuses a token that is not a feed-range continuation', () => {
    expect(() => parseSdkContinuation('{"partitionKey":"x"}')).toThrow(/not a change feed continuation/);
  });

  it('converts between etags and LSNs', () => {
    expect(lsnOfEtag('"42"')).toBe(42);
    expect(lsnOfEtag(null)).toBeUndefined();
    expect(lsnOfEtag('"abc"')).toBeUndefined();
    expect(etagOfLsn(41)).toBe('"41"');
  });
});

import { lagOf, latestLsnOfSessionToken } from '../../../src/changefeed/estimator';

describe('estimator lag arithmetic (.NET method)', () => {
  it.each([
    ['v2 session token', '0:-1#42', 42],
    ['v2 with regional LSNs', '3:-1#1050#1=1049#2=1050', 1050],
    ['legacy token', '0:17', 17],
    ['several ranges during a split: the largest', '1:-1#40,2:-1#45', 45],
    ['missing', undefined, undefined],
  ])('reads the latest LSN from a %s', (_n, token, expected) => {
    expect(latestLsnOfSessionToken(token)).toBe(expected);
  });

  it('is 0 on 304 (nothing after the continuation)', () => {
    expect(lagOf({ statusCode: 304, sessionToken: '0:-1#99' })).toBe(0);
  });

  it('counts LSNs from the first unprocessed change to the latest, both included', () => {
    // continuation at 40; changes 41..50 exist; the first page item has _lsn 41
    expect(lagOf({ statusCode: 200, sessionToken: '0:-1#50', firstItemLsn: 41 })).toBe(10);
  });

  it('reports 1 when the numbers cannot be read, as .NET does', () => {
    expect(lagOf({ statusCode: 200, sessionToken: undefined, firstItemLsn: 5 })).toBe(1);
    expect(lagOf({ statusCode: 200, sessionToken: '0:-1#5' })).toBe(1);
  });

  it('never reports a negative lag (session token older than the page)', () => {
    expect(lagOf({ statusCode: 200, sessionToken: '0:-1#3', firstItemLsn: 10 })).toBe(0);
  });
});

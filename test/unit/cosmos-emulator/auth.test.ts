import { MasterKeyAuth } from '@opstream/cosmos-emulator/auth';
import { WELL_KNOWN_EMULATOR_KEY } from '@opstream/cosmos-emulator';
import { sdkAuthorizationHeader } from './sdk-internals';

describe('master-key auth', () => {
  const auth = new MasterKeyAuth(WELL_KNOWN_EMULATOR_KEY);
  const date = new Date('2026-01-02T03:04:05Z');
  const verify = (method: string, segments: string[], authorization: string): void =>
    auth.verify(method, segments, { authorization, 'x-ms-date': date.toUTCString() });

  it('derives the signed resource type and link from the path', () => {
    expect(MasterKeyAuth.resourceOf([])).toEqual({ type: '', link: '' });
    expect(MasterKeyAuth.resourceOf(['dbs'])).toEqual({ type: 'dbs', link: '' });
    expect(MasterKeyAuth.resourceOf(['dbs', 'd'])).toEqual({ type: 'dbs', link: 'dbs/d' });
    expect(MasterKeyAuth.resourceOf(['dbs', 'd', 'colls', 'c', 'docs'])).toEqual({ type: 'docs', link: 'dbs/d/colls/c' });
    expect(MasterKeyAuth.resourceOf(['dbs', 'd', 'colls', 'c', 'docs', 'x y'])).toEqual({ type: 'docs', link: 'dbs/d/colls/c/docs/x y' });
    expect(MasterKeyAuth.resourceOf(['dbs', 'd', 'colls', 'c', 'pkranges'])).toEqual({ type: 'pkranges', link: 'dbs/d/colls/c' });
  });

  it('accepts exactly what the SDK signs', async () => {
    verify('GET', [], await sdkAuthorizationHeader(WELL_KNOWN_EMULATOR_KEY, 'GET', '', '', date));
    verify(
      'POST',
      ['dbs', 'd', 'colls', 'c', 'docs'],
      await sdkAuthorizationHeader(WELL_KNOWN_EMULATOR_KEY, 'POST', 'docs', 'dbs/d/colls/c', date),
    );
    verify(
      'PATCH',
      ['dbs', 'd', 'colls', 'c', 'docs', 'é'],
      await sdkAuthorizationHeader(WELL_KNOWN_EMULATOR_KEY, 'PATCH', 'docs', 'dbs/d/colls/c/docs/é', date),
    );
  });

  it('refuses another key, another resource, a missing date or a non-master token with 401', async () => {
    const otherKey = Buffer.from('another key').toString('base64');
    const signed = await sdkAuthorizationHeader(otherKey, 'GET', 'dbs', 'dbs/d', date);
    expect(() => verify('GET', ['dbs', 'd'], signed)).toThrow(
      expect.objectContaining({ status: 401, message: expect.stringContaining("can't serve the request") }),
    );
    const forOther = await sdkAuthorizationHeader(WELL_KNOWN_EMULATOR_KEY, 'GET', 'dbs', 'dbs/e', date);
    expect(() => verify('GET', ['dbs', 'd'], forOther)).toThrow(expect.objectContaining({ status: 401 }));
    expect(() => auth.verify('GET', ['dbs'], { authorization: forOther })).toThrow(
      expect.objectContaining({ status: 401, message: expect.stringContaining('x-ms-date') }),
    );
    expect(() => verify('GET', ['dbs'], encodeURIComponent('type=aad&ver=1.0&sig=abc'))).toThrow(expect.objectContaining({ status: 401 }));
    expect(() => auth.verify('GET', ['dbs'], {})).toThrow(
      expect.objectContaining({ status: 401, message: expect.stringContaining('authorization') }),
    );
  });

  it('checks the admin bearer token', () => {
    expect(() => auth.verifyAdmin({ authorization: `Bearer ${WELL_KNOWN_EMULATOR_KEY}` })).not.toThrow();
    expect(() => auth.verifyAdmin({ authorization: 'Bearer nope' })).toThrow(expect.objectContaining({ status: 401 }));
    expect(() => auth.verifyAdmin({})).toThrow(expect.objectContaining({ status: 401 }));
  });
});

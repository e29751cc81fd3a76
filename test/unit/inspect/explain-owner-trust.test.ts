import { ownerTarget, parseTrustedOps } from '../../../src/inspect/explain/owner-trust';

/**
 * `opstream explain` sends ops.token to the range owner's ops server, whose address a lease document
 * names (issue 39): only loopback, `ops.trustedUrls` or `--owner-url` get it, never over http beyond loopback.
 */
describe('which ops servers explain sends the token to', () => {
  const none = parseTrustedOps(undefined);
  const trusted = parseTrustedOps('https://opstream-0.ops.example:9464, ops-1.example');

  it.each([
    ['http://127.0.0.1:9464', 'http://127.0.0.1:9464'],
    ['http://127.9.9.9:9464/', 'http://127.9.9.9:9464'],
    ['http://localhost:9464', 'http://localhost:9464'],
    ['http://[::1]:9464', 'http://[::1]:9464'],
    ['https://opstream-0.ops.example:9464/x', 'https://opstream-0.ops.example:9464'],
    ['https://ops-1.example:8443', 'https://ops-1.example:8443'],
  ])('a lease naming %s is asked (loopback or trusted)', (url, origin) => {
    expect(ownerTarget(url, false, trusted)).toEqual({ ok: true, origin });
  });

  it.each([
    ['https://attacker.example:9464', /neither loopback nor listed in ops.trustedUrls \(OPSTREAM_OPS_TRUSTED_URLS\)/],
    ['https://opstream-0.ops.example:9999', /neither loopback nor listed/],
    ['https://10.0.0.7:9464', /neither loopback nor listed/],
    ['http://ops-1.example:9464', /plain http beyond loopback/],
    ['http://169.254.169.254', /plain http beyond loopback/],
    ['https://user:pw@ops-1.example', /without credentials/],
    ['ftp://ops-1.example', /not an http\(s\) URL/],
  ])('a lease naming %s is not asked', (url, reason) => {
    const target = ownerTarget(url, false, trusted);
    expect(target.ok).toBe(false);
    if (!target.ok) expect(target.reason).toMatch(reason);
  });

  it('an address the operator names is asked over https anywhere, over http only on loopback', () => {
    expect(ownerTarget('https://10.0.0.7:9464', true, none)).toEqual({ ok: true, origin: 'https://10.0.0.7:9464' });
    expect(ownerTarget('http://localhost:19464', true, none)).toEqual({ ok: true, origin: 'http://localhost:19464' });
    expect(ownerTarget('http://10.0.0.7:9464', true, none).ok).toBe(false);
  });

  it('ops.trustedUrls takes https origins and host names only, naming the setting otherwise', () => {
    expect(() => parseTrustedOps('http://ops.example:9464')).toThrow(/ops.trustedUrls: http:\/\/ops.example:9464 is not an https origin/);
    expect(() => parseTrustedOps('https://ops.example/path')).toThrow(/not an https origin/);
    expect(() => parseTrustedOps('ops example')).toThrow(/neither an https origin nor a host name/);
    expect(parseTrustedOps(' , ')).toEqual({ origins: new Set(), hosts: new Set() });
  });
});

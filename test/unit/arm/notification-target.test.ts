import {
  checkNotificationUri,
  parseHostSuffixes,
  resolveNotificationTarget,
  type NotificationTargetPolicy,
  type Resolver,
} from '../../../src/arm/notification-target';

/**
 * The checks of a notificationUri, as units: names resolve through an injected resolver, so nothing
 * is looked up or sent anywhere (link-local, private and public addresses are only ever data here).
 */
const ARM: NotificationTargetPolicy = {
  allowedHostSuffixes: parseHostSuffixes('management.azure.com, management.usgovcloudapi.net,management.chinacloudapi.cn.'),
  allowLoopback: false,
};
const DEV: NotificationTargetPolicy = { ...ARM, allowLoopback: true };

const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));

async function check(
  uri: string,
  policy: NotificationTargetPolicy,
  resolver: Resolver,
): Promise<{ ok: true; addresses: string[] } | { ok: false; reason: string; detail: string }> {
  const checked = checkNotificationUri(uri, policy);
  if (!checked.ok) return { ok: false, ...checked.refusal };
  const resolved = await resolveNotificationTarget(checked.target, policy, resolver);
  return resolved.ok ? { ok: true, addresses: resolved.addresses.map((a) => a.address) } : { ok: false, ...resolved.refusal };
}

describe('notificationUri checks', () => {
  it('parses the suffix setting: lower case, trimmed, without trailing dots or blanks', () => {
    expect(parseHostSuffixes(' Management.Azure.com , ,management.chinacloudapi.cn.')).toEqual([
      'management.azure.com',
      'management.chinacloudapi.cn',
    ]);
  });

  it.each([
    ['https://management.azure.com/subscriptions/s/providers/x?api-version=1'],
    ['https://eastus.management.azure.com/notify'],
    ['https://MANAGEMENT.AZURE.COM./notify'],
    ['https://management.usgovcloudapi.net/notify'],
    ['https://management.chinacloudapi.cn:443/notify'],
  ])('allows %s when its name resolves to public addresses only', async (uri) => {
    await expect(check(uri, ARM, resolvesTo('20.37.158.0', '2603:1030:20e:3::23c'))).resolves.toEqual({
      ok: true,
      addresses: ['20.37.158.0', '2603:1030:20e:3::23c'],
    });
  });

  it.each([
    ['not a uri', 'uri'],
    ['/relative/path', 'uri'],
    ['ftp://management.azure.com/x', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['http://management.azure.com/x', 'scheme'],
    ['https://user:secret@management.azure.com/x', 'uri'],
    ['https://management.azure.com:8443/x', 'uri'],
    ['https://evil.example/x', 'host'],
    ['https://management.azure.com.evil.example/x', 'host'],
    ['https://evilmanagement.azure.com/x', 'host'],
    ['https://azure.com/x', 'host'],
    ['https://20.37.158.0/x', 'host'],
    ['https://169.254.169.254/metadata/instance', 'address'],
    ['https://[fe80::1]/x', 'address'],
    ['https://10.0.0.5/x', 'address'],
    ['https://168.63.129.16/machine', 'address'],
    ['http://127.0.0.1:8080/x', 'address'],
    ['http://2130706433/x', 'address'],
    ['http://[::1]:8080/x', 'address'],
    ['http://localhost:8080/x', 'host'],
  ])('refuses %s (%s) before any lookup', async (uri, reason) => {
    const resolver = jest.fn(resolvesTo('20.37.158.0'));
    await expect(check(uri, ARM, resolver)).resolves.toMatchObject({ ok: false, reason });
    expect(resolver).not.toHaveBeenCalled();
  });

  it.each([
    ['the instance metadata endpoint', '169.254.169.254', 'a link-local address'],
    ['a link-local IPv6 address', 'fe80::1', 'a link-local address'],
    ['a private address', '10.1.2.3', 'a private address'],
    ['a private address in 172.16/12', '172.20.0.1', 'a private address'],
    ['a unique-local IPv6 address', 'fd00:ec2::254', 'a private address'],
    ['an IPv4-mapped private address', '::ffff:192.168.0.1', 'a private address'],
    ['the Azure WireServer', '168.63.129.16', 'an Azure platform address'],
    ['a loopback address', '127.0.0.1', 'a loopback address'],
    ['the unspecified address', '0.0.0.0', 'a reserved address'],
  ])('refuses an allowed name that resolves to %s', async (_what, address, kind) => {
    const result = await check('https://management.azure.com/notify', ARM, resolvesTo(address));
    expect(result).toEqual({
      ok: false,
      reason: 'address',
      detail: expect.stringContaining(`management.azure.com resolves to ${address}, ${kind}`),
    });
  });

  it('refuses a name when any one of its addresses is not public (a later connection could pick it)', async () => {
    await expect(check('https://management.azure.com/notify', ARM, resolvesTo('20.37.158.0', '10.0.0.5'))).resolves.toMatchObject({
      ok: false,
      reason: 'address',
    });
  });

  it('says what it refused without the path or query (which may carry a token)', async () => {
    const result = await check('https://evil.example/notify?sig=SECRET', ARM, resolvesTo('20.37.158.0'));
    expect(JSON.stringify(result)).not.toContain('SECRET');
    expect(JSON.stringify(result)).not.toContain('/notify');
  });

  it('throws when a lookup fails or finds nothing (retried like a connection failure, not refused)', async () => {
    const checked = checkNotificationUri('https://management.azure.com/x', ARM);
    if (!checked.ok) throw new Error('expected the URI to pass');
    await expect(
      resolveNotificationTarget(checked.target, ARM, async () => Promise.reject(new Error('getaddrinfo ENOTFOUND'))),
    ).rejects.toThrow('ENOTFOUND');
    await expect(resolveNotificationTarget(checked.target, ARM, resolvesTo())).rejects.toThrow('resolves to no address');
  });

  describe('with the development switch (notifications.allowLoopback)', () => {
    it.each([
      ['http://localhost:8080/x'],
      ['http://arm.localhost:8080/x'],
      ['http://127.9.9.9:8080/x'],
      ['http://2130706433:8080/x'],
      ['http://[::1]:8080/x'],
      ['https://localhost:8443/x'],
    ])('allows loopback %s, over http too', async (uri) => {
      await expect(check(uri, DEV, resolvesTo('127.0.0.1', '::1'))).resolves.toMatchObject({ ok: true });
    });

    it.each([
      ['a loopback name that resolves to a private address', 'http://localhost:8080/x', '10.0.0.5'],
      ['a loopback name that resolves to the metadata endpoint', 'http://localhost:8080/x', '169.254.169.254'],
      ['http to a loopback name that resolves to a public address', 'http://localhost:8080/x', '20.37.158.0'],
      ['an allowed name that resolves to a link-local address', 'https://management.azure.com/x', '169.254.169.254'],
      ['an allowed name that resolves to a private address', 'https://management.azure.com/x', '192.168.1.1'],
    ])('still refuses %s', async (_what, uri, address) => {
      await expect(check(uri, DEV, resolvesTo(address))).resolves.toMatchObject({ ok: false, reason: 'address' });
    });

    it.each([
      ['http://169.254.169.254/latest/meta-data', 'address'],
      ['http://10.0.0.5/x', 'address'],
      ['http://management.azure.com/x', 'scheme'],
      ['http://evil.example/x', 'host'],
    ])('still refuses %s (%s)', async (uri, reason) => {
      await expect(check(uri, DEV, resolvesTo('127.0.0.1'))).resolves.toMatchObject({ ok: false, reason });
    });

    it('lets an allowed name resolve to loopback (a local stand-in for ARM)', async () => {
      await expect(check('https://management.azure.com/x', DEV, resolvesTo('127.0.0.1'))).resolves.toMatchObject({ ok: true });
    });
  });
});

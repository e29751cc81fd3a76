import { addressKind } from '../../../src/util/address-kind';

/** Only addresses are classified here: nothing is sent anywhere. */
describe('addressKind', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['168.63.129.16', 'platform'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['64:ff9b::a9fe:a9fe', 'reserved'],
    ['2002:a9fe:a9fe::1', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['172.32.0.1', 'public'],
    ['20.37.158.0', 'public'],
    ['2603:1030:20e:3::23c', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it('throws for what is not an IP address', () => {
    expect(() => addressKind('management.azure.com')).toThrow('not an IP address');
  });
});

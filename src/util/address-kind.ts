import { BlockList, isIP } from 'net';

/**
 * What an IP address reaches, for deciding whether a URL taken from a document may be connected
 * to: only `public` addresses are the internet; the others reach this machine, its link (the
 * instance metadata endpoint 169.254.169.254), the private network, the Azure platform (the
 * WireServer and DNS address 168.63.129.16) or nothing routable. IPv4-mapped IPv6 addresses
 * (::ffff:10.0.0.1) count as the IPv4 address they carry (`net.BlockList` maps them).
 */
export type AddressKind = 'loopback' | 'link-local' | 'private' | 'platform' | 'reserved' | 'public';

type Subnet = readonly [network: string, prefix: number];

/** In order: the first list that holds an address names its kind (::1 is loopback before ::/96 is reserved). */
const RANGES: ReadonlyArray<readonly [AddressKind, readonly Subnet[], readonly Subnet[]]> = [
  ['loopback', [['127.0.0.0', 8]], [['::1', 128]]],
  ['link-local', [['169.254.0.0', 16]], [['fe80::', 10]]],
  [
    'private',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10],
    ],
    [
      ['fc00::', 7],
      ['fec0::', 10],
    ],
  ],
  ['platform', [['168.63.129.16', 32]], []],
  [
    'reserved',
    [
      ['0.0.0.0', 8], // "this network"
      ['192.0.0.0', 24], // IETF protocol assignments
      ['192.0.2.0', 24], // documentation
      ['198.18.0.0', 15], // benchmarking
      ['198.51.100.0', 24], // documentation
      ['203.0.113.0', 24], // documentation
      ['224.0.0.0', 4], // multicast
      ['240.0.0.0', 4], // reserved, and the broadcast address
    ],
    [
      ['::', 96], // unspecified and IPv4-compatible
      ['64:ff9b::', 96], // NAT64: would reach the IPv4 address it embeds
      ['64:ff9b:1::', 48],
      ['100::', 64], // discard
      ['2001::', 32], // Teredo: embeds an IPv4 address
      ['2001:db8::', 32], // documentation
      ['2002::', 16], // 6to4: embeds an IPv4 address
      ['ff00::', 8], // multicast
    ],
  ],
];

const LISTS: ReadonlyArray<readonly [AddressKind, BlockList]> = RANGES.map(([kind, v4, v6]) => {
  const list = new BlockList();
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return [kind, list] as const;
});

/** The kind of an IP address (IPv6 with or without brackets); throws for a string that is not one. */
export function addressKind(address: string): AddressKind {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 0) throw new Error(`not an IP address: ${address}`);
  const type = version === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of LISTS) if (list.check(bare, type)) return kind;
  return 'public';
}

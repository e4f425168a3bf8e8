import { BlockList, isIP } from 'node:net';

/**
 * Which kind of network an IP address belongs to. Everything except `public` is refused when
 * `probes.blockPrivateAddresses` is on, so a monitor cannot be pointed at the machine it runs
 * on or at the network behind it (SSRF). The API layer uses the same classification.
 */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'unique-local';

export const BLOCKED_TARGET_MESSAGE =
  'Target resolves to a private address (blocked by probes.blockPrivateAddresses)';

type Family = 'ipv4' | 'ipv6';

const RANGES: ReadonlyArray<readonly [Exclude<AddressClass, 'public'>, string, number, Family]> = [
  // 0.0.0.0 and :: reach the local host on Linux.
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  // RFC 6598 carrier-grade NAT.
  ['shared', '100.64.0.0', 10, 'ipv4'],
  ['unique-local', 'fc00::', 7, 'ipv6'],
];

const lists = new Map<Exclude<AddressClass, 'public'>, BlockList>();
for (const [kind, network, prefix, family] of RANGES) {
  let list = lists.get(kind);
  if (!list) {
    list = new BlockList();
    lists.set(kind, list);
  }
  list.addSubnet(network, prefix, family);
}

/** Classifies an IP literal; IPv4-mapped IPv6 (`::ffff:10.0.0.1`) counts as its IPv4 address. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 0) throw new TypeError(`Not an IP address: ${address}`);
  const family: Family = version === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of lists) {
    if (list.check(bare, family)) return kind;
  }
  return 'public';
}

export function isPrivateAddress(address: string): boolean {
  return classifyAddress(address) !== 'public';
}

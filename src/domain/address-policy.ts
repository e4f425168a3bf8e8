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

/** The eight 16-bit groups of an IPv6 literal (a dotted IPv4 tail counts as the last two). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The IPv4 address a translated IPv6 address reaches: NAT64 (64:ff9b::/96 and the local-use
 * 64:ff9b:1::/48, RFC 6052 and 8215) carries it in the last 32 bits, 6to4 (2002::/16) in bits
 * 16 to 48. A gateway on the path would deliver to that IPv4 address, so it is what counts.
 */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  if (g[0] === 0x64 && g[1] === 0xff9b && (g[2] === 0 || g[2] === 1)) return quad(g[6]!, g[7]!);
  if (g[0] === 0x2002) return quad(g[1]!, g[2]!);
  return null;
}

/**
 * Classifies an IP literal. IPv4-mapped IPv6 (`::ffff:10.0.0.1`), NAT64 and 6to4 addresses
 * count as the IPv4 address they carry.
 */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 0) throw new TypeError(`Not an IP address: ${address}`);
  const ipv4 = version === 6 ? embeddedIpv4(bare) : null;
  if (ipv4 !== null) return classifyAddress(ipv4);
  const family: Family = version === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of lists) {
    if (list.check(bare, family)) return kind;
  }
  return 'public';
}

export function isPrivateAddress(address: string): boolean {
  return classifyAddress(address) !== 'public';
}

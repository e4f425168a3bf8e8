import { isIP } from 'node:net';

/**
 * The outbound policy (docs/outbound-policy.md): which addresses a connection Vigil makes on an
 * account's behalf (a probe, an alert webhook or chat message, a status page subscriber's
 * webhook, and every redirect they follow) may reach. Pure classification: the connect-time
 * guard (util/outbound-guard.ts) applies it to the address actually connected to.
 */

/** Which kind of network an IP address belongs to. Everything but `public` is refused under a rule. */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'metadata';

/**
 * Who refuses private addresses, which names the setting in the refusal's message:
 * `operator` (probes.blockPrivateAddresses), `signup` (an account created by agent signup,
 * unless signup.allowPrivateTargets), `subscriber` (a status page's webhook subscriber, unless
 * statusPages.subscriberWebhooks.allowPrivateTargets). null: private addresses may be reached.
 */
export type PrivateRefusal = 'operator' | 'signup' | 'subscriber';

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

/** Two 16-bit groups as one IPv4 address (unsigned 32-bit). */
const joined = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;

/**
 * The IPv4 address an IPv6 address reaches: IPv4-mapped (::ffff:0:0/96), SIIT's
 * IPv4-translated (::ffff:0:0:0/96) and the deprecated IPv4-compatible form (::/96) carry it in
 * the last 32 bits, as do NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48, RFC 6052 and
 * 8215); 6to4 (2002::/16) in bits 16 to 48; Teredo (2001::/32) in the last 32 bits, inverted.
 * A stack or a gateway on the path delivers to that IPv4 address, so it is what counts.
 */
function embeddedIpv4(g: number[]): number | null {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (g[5] === 0xffff || (g[5] === 0 && (g[6] !== 0 || g[7]! > 1)))) return joined(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return joined(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && (g[2] === 0 || g[2] === 1)) return joined(g[6]!, g[7]!);
  if (g[0] === 0x2002) return joined(g[1]!, g[2]!);
  if (g[0] === 0x2001 && g[1] === 0) return joined(g[6]! ^ 0xffff, g[7]! ^ 0xffff);
  return null;
}

type Range = readonly [AddressClass, string, number];

/*
 * Checked in order, first match wins: the metadata services first (they sit inside wider
 * ranges), then the ranges. Plain arithmetic rather than net.BlockList, whose check() costs
 * tens of microseconds per range, on every probe under a rule.
 */
const RANGES: readonly Range[] = [
  // Cloud instance metadata services: one request there can hand out the host's credentials.
  ['metadata', '169.254.169.254', 32],
  ['metadata', '169.254.170.2', 32],
  ['metadata', '100.100.100.200', 32],
  ['metadata', '192.0.0.192', 32],
  ['metadata', 'fd00:ec2::254', 128],
  // 0.0.0.0/8 and :: reach the local host on Linux.
  ['unspecified', '0.0.0.0', 8],
  ['unspecified', '::', 128],
  ['loopback', '127.0.0.0', 8],
  ['loopback', '::1', 128],
  ['private', '10.0.0.0', 8],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  // IETF protocol assignments (RFC 6890).
  ['private', '192.0.0.0', 24],
  // Deprecated site-local IPv6 (RFC 3879): still routed inside some networks.
  ['private', 'fec0::', 10],
  ['link-local', '169.254.0.0', 16],
  ['link-local', 'fe80::', 10],
  // RFC 6598 carrier-grade NAT.
  ['shared', '100.64.0.0', 10],
  ['unique-local', 'fc00::', 7],
  ['multicast', '224.0.0.0', 4],
  ['multicast', 'ff00::', 8],
  // 240/4, 255.255.255.255 (broadcast) included.
  ['reserved', '240.0.0.0', 4],
];

/** A dotted-decimal IPv4 address as an unsigned 32-bit number. */
function ipv4Number(address: string): number {
  const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

const V4: ReadonlyArray<readonly [AddressClass, number, number]> = RANGES.filter(([, a]) => isIP(a) === 4).map(([kind, a, prefix]) => [kind, ipv4Number(a), prefix]);
const V6: ReadonlyArray<readonly [AddressClass, number[], number]> = RANGES.filter(([, a]) => isIP(a) === 6).map(([kind, a, prefix]) => [kind, ipv6Groups(a), prefix]);

function classifyIpv4(n: number): AddressClass {
  for (const [kind, base, prefix] of V4) {
    const shift = 32 - prefix;
    if (shift === 32 || Math.floor(n / 2 ** shift) === Math.floor(base / 2 ** shift)) return kind;
  }
  return 'public';
}

/** Whether the first `prefix` bits of two IPv6 addresses (as groups) agree. */
function samePrefix(g: number[], base: number[], prefix: number): boolean {
  for (let i = 0, left = prefix; left > 0; i++, left -= 16) {
    const bits = Math.min(16, left);
    if (g[i]! >> (16 - bits) !== base[i]! >> (16 - bits)) return false;
  }
  return true;
}

function classifyIpv6(g: number[]): AddressClass {
  const ipv4 = embeddedIpv4(g);
  if (ipv4 !== null) return classifyIpv4(ipv4);
  for (const [kind, base, prefix] of V6) if (samePrefix(g, base, prefix)) return kind;
  return 'public';
}

/** `[::1]` (as URL.hostname gives it) to `::1`; an IPv6 zone (`%eth0`) dropped. */
function unbracket(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/**
 * An IPv4 address in any spelling inet_aton(3) accepts, to dotted decimal; null when `text` is
 * not one. Hosts typed into tcp, udp and ping targets are not WHATWG URLs' special hosts, so
 * `2130706433`, `0177.0.0.1`, `0x7f.1` and `127.1` reach the system resolver as they are, which
 * reads them as 127.0.0.1: the policy reads them the same way first.
 */
export function parseLooseIpv4(text: string): string | null {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) value = parseInt(part, 8);
    else if (/^[1-9][0-9]*$/.test(part)) value = Number(part);
    else return null;
    if (!Number.isSafeInteger(value)) return null;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  let n = last;
  values.forEach((v, i) => (n += v * 256 ** (3 - i)));
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
}

/**
 * The IP address a host names, canonical enough to classify and connect to: an IPv6 literal
 * without brackets or zone, an IPv4 address in dotted decimal whatever its spelling; null for a
 * name (to be resolved).
 */
export function ipOfHost(host: string): string | null {
  const bare = unbracket(host.trim());
  if (isIP(bare) === 6) return bare;
  const zoneless = bare.replace(/%.*$/, '');
  if (isIP(zoneless) === 6) return zoneless;
  if (isIP(bare) === 4) return bare;
  return parseLooseIpv4(bare);
}

/**
 * Classifies an IP literal. IPv4-mapped and -compatible IPv6, NAT64, 6to4 and Teredo
 * addresses count as the IPv4 address they carry.
 */
export function classifyAddress(address: string): AddressClass {
  const bare = unbracket(address).replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 0) throw new TypeError(`Not an IP address: ${address}`);
  return version === 4 ? classifyIpv4(ipv4Number(bare)) : classifyIpv6(ipv6Groups(bare));
}

export function isPrivateAddress(address: string): boolean {
  return classifyAddress(address) !== 'public';
}

const SETTING: Record<PrivateRefusal, string> = {
  operator: 'blocked by probes.blockPrivateAddresses',
  signup: 'which accounts created by agent signup may not reach (signup.allowPrivateTargets)',
  subscriber: 'which status page subscriber webhooks may not reach (statusPages.subscriberWebhooks.allowPrivateTargets)',
};

/**
 * The policy's own message for a refused connection: the only thing a refused target tells its
 * caller (never an answer from behind it). `subject` names what was refused (`Target`, `url`).
 */
export function refusalMessage(rule: PrivateRefusal, subject = 'Target'): string {
  return rule === 'operator'
    ? `${subject} resolves to a private address (${SETTING.operator})`
    : `${subject} resolves to a private address, ${SETTING[rule]}`;
}

/** The settings the account rule reads. */
export interface OutboundSettings {
  probes: { blockPrivateAddresses: boolean };
  signup: { allowPrivateTargets: boolean };
}

/**
 * The rule an account's probes and alert deliveries follow: the operator's rule for everyone,
 * else, for an account created by agent signup (strangers), no private addresses unless the
 * operator allows them.
 */
export function accountRule(settings: OutboundSettings, createdBySignup: boolean): PrivateRefusal | null {
  if (settings.probes.blockPrivateAddresses) return 'operator';
  if (createdBySignup && !settings.signup.allowPrivateTargets) return 'signup';
  return null;
}

/**
 * The rule a status page's subscriber webhook follows: anonymous visitors choose these URLs, so
 * private targets are refused unless the operator allows them, and always under the operator's rule.
 */
export function subscriberRule(settings: {
  probes: { blockPrivateAddresses: boolean };
  statusPages: { subscriberWebhooks: { allowPrivateTargets: boolean } };
}): PrivateRefusal | null {
  if (settings.probes.blockPrivateAddresses) return 'operator';
  return settings.statusPages.subscriberWebhooks.allowPrivateTargets ? null : 'subscriber';
}

/**
 * Two rules that both apply (a task's own and the prober node's config, a caller's and the
 * operator's): either one refuses. The more specific reason is kept for the message.
 */
export function strictest(a: PrivateRefusal | null, b: PrivateRefusal | null): PrivateRefusal | null {
  if (a === null) return b;
  if (b === null || a !== 'operator') return a;
  return b;
}

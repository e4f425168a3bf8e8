import { lookup as systemLookup, Resolver } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { ipOfHost, isPrivateAddress, refusalMessage, type PrivateRefusal } from '../domain/outbound-policy.js';

/**
 * The outbound policy's connect-time guard (docs/outbound-policy.md): every connection made on
 * an account's behalf resolves its host here and connects to an address this returned, so the
 * rule is applied to the address actually connected to, with no window between the check and
 * the connect. Probes call `resolveOutbound` and connect to its answer; undici agents, `ws`
 * and `net`/`tls` connects take `outboundLookup` as their `lookup`.
 */

export interface OutboundOptions {
  /** Who refuses private addresses (the rule's reason); null: they may be reached. */
  refusePrivate: PrivateRefusal | null;
  /** `probes.dnsServers` ("ip" or "ip:port"); empty: the system resolver. */
  dnsServers: readonly string[];
}

export interface OutboundAddress {
  address: string;
  family: 4 | 6;
}

/** A connection the policy refused; its message is the policy's own, and all a caller may show. */
export class OutboundRefused extends Error {
  readonly code = 'EOUTBOUND_REFUSED';
  constructor(readonly rule: PrivateRefusal) {
    super(refusalMessage(rule));
    this.name = 'OutboundRefused';
  }
}

/** Per query and attempt when `probes.dnsServers` is set (the caller's deadline bounds the whole). */
const QUERY_TIMEOUT_MS = 2_000;
const resolvers = new Map<string, Resolver>();

function resolverFor(servers: readonly string[]): Resolver {
  const key = servers.join(',');
  let resolver = resolvers.get(key);
  if (!resolver) {
    resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: 2 });
    resolver.setServers([...servers]);
    resolvers.set(key, resolver);
  }
  return resolver;
}

/** A name's A and AAAA records from the configured servers; fails like dns.lookup when it has none. */
async function resolveWith(servers: readonly string[], name: string): Promise<OutboundAddress[]> {
  const resolver = resolverFor(servers);
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  const addresses: OutboundAddress[] = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
  ];
  if (addresses.length > 0) return addresses;
  if (v4.status === 'rejected') throw v4.reason;
  if (v6.status === 'rejected') throw v6.reason;
  throw Object.assign(new Error(`queryA ENOTFOUND ${name}`), { code: 'ENOTFOUND', syscall: 'queryA', hostname: name });
}

/** Every address a host stands for: the literal itself (in any spelling), or what the resolver answers. */
export async function resolveHost(host: string, dnsServers: readonly string[]): Promise<OutboundAddress[]> {
  const ip = ipOfHost(host);
  if (ip !== null) return [{ address: ip, family: ip.includes(':') ? 6 : 4 }];
  const name = host.replace(/^\[(.*)\]$/, '$1');
  if (dnsServers.length > 0) return resolveWith(dnsServers, name);
  return (await systemLookup(name, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/**
 * The addresses a connection to `host` may use, in the resolver's order. Under a rule, any
 * private address refuses the whole host (OutboundRefused): a name that answers both ways
 * would otherwise reach inside on the second try.
 */
export async function resolveOutbound(host: string, opts: OutboundOptions): Promise<OutboundAddress[]> {
  const addresses = await resolveHost(host, opts.dnsServers);
  if (opts.refusePrivate !== null && addresses.some((a) => isPrivateAddress(a.address))) throw new OutboundRefused(opts.refusePrivate);
  return addresses;
}

/**
 * `resolveOutbound` as a `lookup` option (undici's connect, net.connect, tls.connect, ws).
 * Node skips `lookup` for an IP literal host: callers whose host may be one check it with
 * `assertOutboundHost` first (a WHATWG URL's host is canonical, so no odd spelling slips by).
 */
export function outboundLookup(opts: OutboundOptions): LookupFunction {
  return (hostname, options, callback) => {
    resolveOutbound(hostname, opts).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (wanted.length === 0) {
          const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname });
          return callback(err, '', 0);
        }
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted);
        callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** Refuses an IP literal host under the rule (names are refused by `outboundLookup` when they resolve). */
export function assertOutboundHost(host: string, rule: PrivateRefusal | null): void {
  if (rule === null) return;
  const ip = ipOfHost(host);
  if (ip !== null && isPrivateAddress(ip)) throw new OutboundRefused(rule);
}

/** Whether a host is, or resolves to, a private address; a name that does not resolve now counts as public (it is checked again at connect). */
export async function resolvesToPrivate(host: string, dnsServers: readonly string[]): Promise<boolean> {
  try {
    return (await resolveHost(host, dnsServers)).some((a) => isPrivateAddress(a.address));
  } catch {
    return false;
  }
}

import { OutboundRefused, resolveOutbound, type OutboundAddress } from '../../util/outbound-guard.js';
import type { PrivateRefusal } from '../../domain/outbound-policy.js';
import { ProbeError } from './probe-errors.js';

export type TargetAddress = OutboundAddress;

/** `probes.dnsServers` of this process (set once per probe thread from its workerData); empty: the system resolver. */
let dnsServers: readonly string[] = [];

export function useDnsServers(servers: readonly string[]): void {
  dnsServers = servers;
}

/** `[::1]` (as URL.hostname gives it) to `::1`. */
export function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Resolves a target host to the addresses a probe may connect to, in the resolver's order,
 * through the outbound policy's guard: probes connect to the very addresses checked here, so
 * a second lookup cannot swap in a private one (every redirect hop comes through here too).
 */
export async function resolveTarget(host: string, refusePrivate: PrivateRefusal | null): Promise<TargetAddress[]> {
  if (bareHost(host) === '') throw new ProbeError('URL has no host');
  let addresses: TargetAddress[];
  try {
    addresses = await resolveOutbound(host, { refusePrivate, dnsServers });
  } catch (err) {
    if (err instanceof OutboundRefused) throw new ProbeError(err.message);
    throw err;
  }
  if (addresses.length === 0) throw new ProbeError('DNS lookup failed: no addresses');
  return addresses;
}

/** Where a dns check asks when its target names no server: the configured servers, if any. */
export function configuredDnsServers(): readonly string[] {
  return dnsServers;
}

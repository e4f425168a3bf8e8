import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { BLOCKED_TARGET_MESSAGE, isPrivateAddress } from '../../domain/address-policy.js';
import { ProbeError } from './probe-errors.js';

export interface TargetAddress {
  address: string;
  family: 4 | 6;
}

/** `[::1]` (as URL.hostname gives it) to `::1`. */
export function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Resolves a target host to the addresses a probe may connect to, in the resolver's order.
 * With `blockPrivate`, any private address refuses the whole target: probes then connect to
 * the very addresses checked here, so a second lookup cannot swap in a private one.
 */
export async function resolveTarget(host: string, blockPrivate: boolean): Promise<TargetAddress[]> {
  const name = bareHost(host);
  if (name === '') throw new ProbeError('URL has no host');
  const version = isIP(name);
  const addresses: TargetAddress[] =
    version !== 0
      ? [{ address: name, family: version === 4 ? 4 : 6 }]
      : (await lookup(name, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  if (addresses.length === 0) throw new ProbeError('DNS lookup failed: no addresses');
  if (blockPrivate && addresses.some((a) => isPrivateAddress(a.address))) {
    throw new ProbeError(BLOCKED_TARGET_MESSAGE);
  }
  return addresses;
}

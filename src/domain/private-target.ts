import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from './address-policy.js';

/**
 * Whether a host is, or resolves to, a private or loopback address (decisions §3,
 * `probes.blockPrivateAddresses`). A name that does not resolve now counts as public: the
 * probe or delivery checks again when it connects.
 */
export async function resolvesToPrivate(host: string): Promise<boolean> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0) return isPrivateAddress(bare);
  try {
    return (await lookup(bare, { all: true })).some((a) => isPrivateAddress(a.address));
  } catch {
    return false;
  }
}

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from './address-policy.js';

/**
 * Why this account may not watch private, loopback or link-local targets (nor send webhooks
 * there), or null when it may. Strangers can create accounts by agent signup: unless the
 * operator allows it, those accounts cannot probe the operator's internal network.
 */
export function privateTargetRefusal(
  config: { probes: { blockPrivateAddresses: boolean }; signup: { allowPrivateTargets: boolean } },
  createdBySignup: () => boolean | Promise<boolean>,
): string | null | Promise<string | null> {
  if (config.probes.blockPrivateAddresses) return 'url resolves to a private address (blocked by probes.blockPrivateAddresses)';
  if (config.signup.allowPrivateTargets) return null;
  const bySignup = createdBySignup();
  return bySignup instanceof Promise ? bySignup.then(signupRefusal) : signupRefusal(bySignup);
}

function signupRefusal(bySignup: boolean): string | null {
  return bySignup ? 'url resolves to a private address, which accounts created by agent signup may not watch (signup.allowPrivateTargets)' : null;
}

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

import type { Config } from '../config.js';

/**
 * Who Vigil is to WebAuthn: the RP ID is the host name of `publicUrl` (no scheme, no port), and a
 * passkey is bound to it for good, so the public URL's host must stay what it is once members
 * have registered passkeys. Ceremonies are accepted from the public URL's origin and the
 * dashboard's (when `dashboardUrl` is set apart). Browsers allow WebAuthn only on https origins
 * and on http://localhost, and never with an IP address as the RP ID.
 */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

export function relyingParty(config: Pick<Config, 'publicUrl' | 'dashboardUrl'>): RelyingParty {
  const origins = [...new Set([new URL(config.publicUrl).origin, new URL(config.dashboardUrl).origin])];
  return { id: new URL(config.publicUrl).hostname, name: 'Vigil', origins };
}
